import { describe, expect, it } from "vitest";
import { createCallbackGuard, isInternalAddress } from "./callback-guard.ts";

describe("callback guard", () => {
  it("classifies internal and public addresses", () => {
    const internal = [
      "127.0.0.1", "127.8.9.10", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255",
      "::1", "::", "fe80::1", "fd12:3456::1", "fc00::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.0.0.1", "64:ff9b::a9fe:a9fe", "2001:db8::1", "::7f00:1", "::a9fe:a9fe", "64:ff9b:1::a00:1",
    ];
    const external = ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"];
    for (const address of internal) expect(isInternalAddress(address), address).toBe(true);
    for (const address of external) expect(isInternalAddress(address), address).toBe(false);
  });

  it("refuses a host if any of its addresses is internal, and checks every address", async () => {
    const guard = createCallbackGuard({
      allowlist: [],
      lookup: async () => [
        { address: "93.184.216.34", family: 4 },
        { address: "fd00::5", family: 6 },
      ],
    });
    await expect(guard.check("https://rebind.example/cb")).rejects.toMatchObject({ code: "INVALID_INPUT", issues: [{ field: "callback_url" }] });
  });

  it("lets allowlisted hosts through and pins the resolved addresses", async () => {
    const guard = createCallbackGuard({ allowlist: ["127.0.0.1", "hooks.local"], lookup: async () => [{ address: "10.9.8.7", family: 4 }] });
    await expect(guard.check("http://127.0.0.1:8080/x")).resolves.toMatchObject({ allowlisted: true, addresses: [{ address: "127.0.0.1", family: 4 }] });
    await expect(guard.check("http://hooks.local/x")).resolves.toMatchObject({ allowlisted: true, addresses: [{ address: "10.9.8.7" }] });
    await expect(guard.check("http://[::1]:8080/x")).rejects.toThrow(/internal address/);
  });

  it("names unresolvable hosts and bad URLs", async () => {
    const guard = createCallbackGuard({
      allowlist: [],
      lookup: async () => {
        throw new Error("getaddrinfo ENOTFOUND");
      },
    });
    await expect(guard.check("https://nowhere.invalid/")).rejects.toThrow(/cannot be resolved/);
    await expect(guard.check("not a url")).rejects.toThrow(/absolute http\(s\) URL/);
    await expect(guard.check("file:///etc/passwd")).rejects.toThrow(/scheme file:/);
  });
});
