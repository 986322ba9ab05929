import { baseConfig } from "./index.js";

export default baseConfig;
