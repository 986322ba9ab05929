import { DeliberateError } from "@deliberate/base";
import { openStore, type Store } from "@deliberate/store";
import { afterEach, describe, expect, it } from "vitest";
import { reasoningModule } from "../module.ts";
import type { ReasoningRepositories } from "./repositories.ts";

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

describe("reasoning repositories", () => {
  it("report missing rows as NOT_FOUND naming the field", async () => {
    const store = await openStore<ReasoningRepositories>({ path: ":memory:", modules: [reasoningModule] });
    stores.push(store);
    const branchError = await store.branches.getInSession("s", "b").catch((caught: unknown) => caught);
    expect(DeliberateError.isInstance(branchError) && branchError.issues[0]?.field).toBe("branch_id");
  });
});
