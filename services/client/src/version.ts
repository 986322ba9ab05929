/** This package's version (checked against package.json by a test), sent as the MCP client info. */
export const clientVersion = "0.1.0";
