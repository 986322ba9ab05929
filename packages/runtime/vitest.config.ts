import { baseConfig } from "@deliberate/vitest-config";

export default baseConfig;
