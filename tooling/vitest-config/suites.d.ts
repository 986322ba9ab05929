import type { UserConfig } from "vitest/config";

export declare const ownRunPackages: string[];
export declare const engineDialectPackages: string[];
export declare function testedPackages(root: string): string[];
export declare function sourcesGroup(root: string): string[];
export declare function checkRootTestScripts(root: string): void;
export declare function forEngineDialect(packages: string[], dialect?: string): string[];
export declare function groupConfig(options: {
  root: string;
  packages: string[];
  globalSetup: string[];
  maxWorkers: number;
  testTimeout?: number;
  hookTimeout?: number;
}): UserConfig;
