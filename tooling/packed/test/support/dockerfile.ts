import { readFileSync } from "node:fs";

/** What the final stage of a Dockerfile runs: the parts this suite can run without Docker. */
export interface FinalStage {
  stages: number;
  env: Record<string, string>;
  entrypoint: string[];
  cmd: string[];
  healthcheck: string[];
  user: string | undefined;
  volumes: string[];
  /** The `RUN` instructions of every stage, joined continuation lines. */
  runs: string[];
}

/** Instructions with their continuation lines joined, comments dropped. */
function instructions(text: string): Array<{ keyword: string; argument: string }> {
  const joined = text.replace(/\\\n/g, " ");
  return joined
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [keyword = "", ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), argument: rest.join(" ") };
    });
}

/** Parses the final stage of `path` (exec-form JSON arrays only: what the Dockerfiles here use). */
export function readFinalStage(path: string): FinalStage {
  const all = instructions(readFileSync(path, "utf8"));
  const lastFrom = all.map((instruction) => instruction.keyword).lastIndexOf("FROM");
  const final = all.slice(lastFrom);
  const json = (argument: string) => JSON.parse(argument) as string[];
  const env: Record<string, string> = {};
  for (const instruction of final.filter((candidate) => candidate.keyword === "ENV")) {
    for (const match of instruction.argument.matchAll(/(\w+)=("[^"]*"|\S+)/g))
      env[match[1] ?? ""] = (match[2] ?? "").replace(/^"|"$/g, "");
  }
  const last = (keyword: string) => final.filter((candidate) => candidate.keyword === keyword).at(-1)?.argument;
  const healthcheck = last("HEALTHCHECK") ?? "";
  return {
    stages: all.filter((instruction) => instruction.keyword === "FROM").length,
    env,
    entrypoint: json(last("ENTRYPOINT") ?? "[]"),
    cmd: json(last("CMD") ?? "[]"),
    healthcheck: json(healthcheck.slice(healthcheck.indexOf("CMD ") + 4) || "[]"),
    user: last("USER"),
    volumes: final
      .filter((candidate) => candidate.keyword === "VOLUME")
      .flatMap((candidate) => json(candidate.argument)),
    runs: all.filter((instruction) => instruction.keyword === "RUN").map((instruction) => instruction.argument),
  };
}
