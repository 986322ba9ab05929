import type { UserConfig } from "vitest/config";

export { type TestSettings, testSettings } from "./test-settings.js";
export declare function testedPackages(root: string): string[];
export declare function ownRunPackages(root: string): string[];
export declare function separateRunPackages(root: string): string[];
export declare function sourcesGroup(root: string): string[];
export declare function forEngineDialect(root: string, packages: string[], dialect?: string): string[];
export declare const leftStateGuard: string;
export declare function groupConfig(options: {
  root: string;
  packages: string[];
  globalSetup: string[];
  maxWorkers: number;
  testTimeout?: number;
  hookTimeout?: number;
}): UserConfig;
