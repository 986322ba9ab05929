import { startTestPostgres } from "@deliberate/store/testing/postgres";
const pg = await startTestPostgres();
const url = await pg.createDatabase("loop");
console.log(url);
process.on("SIGINT", async () => { await pg.stop(); process.exit(0); });
setInterval(() => {}, 1 << 30);
