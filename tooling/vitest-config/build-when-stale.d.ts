/**
 * Builds a package (its `build` script) when `output` (relative to `packageRoot`) is
 * missing or older than its sources or those of the workspace packages it
 * bundles (`bundles` picks which of its direct workspace dependencies count;
 * default all).
 */
export declare function buildWhenStale(options: {
  packageRoot: string;
  output: string;
  bundles?: (name: string) => boolean;
}): void;
