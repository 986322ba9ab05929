/**
 * The layering, checked by `pnpm lint` (ARCHITECTURE.md §1):
 *   services -> runtime -> modules -> engine -> store / providers -> contracts -> base
 *   algorithms -> base only; client -> contracts only; no cycles; no package imports a service.
 * Modules are the packages that contribute tools with defineModule (reasoning, knowledge-graph,
 * dialog, self-improvement): they may use the engine and the layers below, never each other's
 * insides and never a service.
 */
const modules = "packages/(reasoning|knowledge-graph|dialog|self-improvement)/";
const below = (...layers) => `^(${layers.map((layer) => `packages/${layer}/`).join("|")})`;

module.exports = {
  forbidden: [
    {
      name: "not-to-unresolvable",
      severity: "error",
      comment: "An import that does not resolve: often a package the importer does not declare in its package.json.",
      from: {},
      // virtual: modules are made by the viewer's bundler (its view registry).
      to: { couldNotResolve: true, pathNot: "^virtual:" },
    },
    {
      name: "no-undeclared-packages",
      severity: "error",
      from: {},
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"] },
    },
    {
      name: "no-circular",
      severity: "error",
      comment: "Cycles make layers meaningless.",
      from: {},
      to: { circular: true },
    },
    {
      name: "packages-never-import-services",
      severity: "error",
      from: { path: "^packages/" },
      to: { path: "^services/" },
    },
    {
      name: "services-never-import-each-other",
      severity: "error",
      from: { path: "^services/([^/]+)/" },
      to: { path: "^services/", pathNot: "^services/$1/" },
    },
    {
      name: "base-depends-on-nothing",
      severity: "error",
      from: { path: "^packages/base/" },
      to: { path: "^packages/", pathNot: "^packages/base/" },
    },
    {
      name: "algorithms-use-base-only",
      severity: "error",
      from: { path: "^packages/algorithms/" },
      to: { path: "^packages/", pathNot: below("algorithms", "base") },
    },
    {
      name: "contracts-use-base-only",
      severity: "error",
      from: { path: "^packages/contracts/" },
      to: { path: "^packages/", pathNot: below("contracts", "base") },
    },
    {
      name: "store-and-providers-sit-below-the-engine",
      severity: "error",
      from: { path: "^packages/(store|providers)/" },
      to: { path: "^packages/", pathNot: below("store", "providers", "contracts", "base") },
    },
    {
      name: "the-engine-knows-no-module",
      severity: "error",
      from: { path: "^packages/engine/" },
      to: { path: "^packages/", pathNot: below("engine", "store", "providers", "contracts", "base", "algorithms") },
    },
    {
      name: "modules-never-import-each-other",
      severity: "error",
      from: { path: `^${modules}` },
      to: { path: `^${modules}`, pathNot: "^packages/$1/" },
    },
    {
      name: "only-services-import-the-runtime",
      severity: "error",
      comment: "The runtime is the services' start-up (createRuntime, env readers, runMain): no package depends on it.",
      from: { path: "^packages/", pathNot: "^packages/runtime/" },
      to: { path: "^packages/runtime/" },
    },
    {
      name: "the-runtime-sits-between-the-services-and-the-modules",
      severity: "error",
      comment: "It wires the modules, engine, store and providers together; it never reaches into a service.",
      from: { path: "^packages/runtime/" },
      to: {
        path: "^(packages|services)/",
        pathNot: `^(packages/runtime/|${modules}|${below("engine", "store", "providers", "contracts", "base", "logging", "algorithms").slice(2, -1)})`,
      },
    },
    {
      name: "client-uses-contracts-only",
      severity: "error",
      from: { path: "^services/client/", pathNot: "^services/client/test/" },
      to: { path: "^(packages|services)/", pathNot: "^(services/client/|packages/contracts/|packages/base/)" },
    },
    {
      // The client's end-to-end tests also place each spawned server's database on the test dialect,
      // and answer the knowledge-graph module's prompts from its scripted world (data, no module code).
      name: "client-tests-use-contracts-and-test-places-only",
      severity: "error",
      from: { path: "^services/client/test/" },
      to: {
        path: "^(packages|services)/",
        pathNot:
          "^(services/client/|packages/contracts/|packages/base/|packages/engine/src/testing\\.ts$|packages/knowledge-graph/src/testing/)",
      },
    },
    {
      name: "the-knowledge-graph-test-world-is-data",
      comment: "The client's tests read it (above): it imports nothing, so they reach no module code through it.",
      severity: "error",
      from: { path: "^packages/knowledge-graph/src/testing/" },
      to: { pathNot: "^packages/knowledge-graph/src/testing/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|node_modules|test-output)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.depcruise.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "default"],
      extensions: [".ts", ".js"],
    },
    preserveSymlinks: false,
  },
};
