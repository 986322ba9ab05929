import type { Options } from "tsup";

export interface ServiceBuildOptions {
  /** The service's folder (its package.json is read from here). */
  directory: string;
  /** Entry points, e.g. `{ main: "src/main.ts" }`. */
  entry: Record<string, string>;
  /** Split lazily imported modules into chunks. */
  splitting: boolean;
  /** npm packages to inline as well (pure-JS libraries of many small files load faster bundled). */
  bundle?: string[];
  /** Build the session viewer's browser files into `dist/browser` (the service serves them at /ui). */
  viewerAssets?: boolean;
}

export declare function defineServiceConfig(options: ServiceBuildOptions): Options;
