import type { UserConfig } from "vitest/config";

export declare const baseConfig: UserConfig;
