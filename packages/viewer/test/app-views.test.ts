import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appViews, appViewUri, loadAppViewDocuments } from "../src/app-views.ts";

describe("the in-chat views' documents", () => {
  it("builds one self-contained document per view from the built bundle: inline script and style, nothing to fetch", () => {
    const documents = loadAppViewDocuments();
    expect(documents, "the global setup builds dist/browser").toBeDefined();
    expect([...(documents?.uris ?? [])]).toEqual(appViews.map(appViewUri));
    for (const view of appViews) {
      const html = documents?.read(appViewUri(view)) ?? "";
      expect(html.startsWith("<!doctype html>")).toBe(true);
      expect(html).toContain(`data-views="${view.sections.join(",")}"`);
      expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|<img[^>]+src=/);
      // The inline script never closes its element early.
      expect(html.split("</script>")).toHaveLength(2);
    }
    expect(() => documents?.read("ui://deliberate/nothing.html")).toThrow(/No in-chat view/);
  });

  it("is off when the bundle is not built, and escapes a closing tag inside the bundle", () => {
    const directory = mkdtempSync(join(tmpdir(), "app-views-"));
    try {
      expect(loadAppViewDocuments(directory)).toBeUndefined();
      writeFileSync(join(directory, "app.js"), 'console.log("</script><b>")');
      writeFileSync(join(directory, "viewer.css"), "body{}");
      const html = loadAppViewDocuments(directory)?.read(appViewUri(appViews[0] as (typeof appViews)[number])) ?? "";
      expect(html).toContain('console.log("<\\/script><b>")');
      expect(html.split("</script>")).toHaveLength(2);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
