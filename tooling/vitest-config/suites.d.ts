import type { UserConfig } from "vitest/config";

export interface TestSettings {
  testRun: "own" | "shared";
  engineDialect: boolean;
}
export declare function testSettings(manifest: unknown, where?: string): TestSettings;
export declare function testedPackages(root: string): string[];
export declare function ownRunPackages(root: string): string[];
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
