export type { ViewerHandler } from "./viewer-routes.ts";
export { findViewerAssetsDirectory } from "./viewer-assets.ts";
export { createEngineViewer } from "./engine-viewer.ts";
