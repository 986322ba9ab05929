export { createViewerRoutes } from "./viewer-routes.ts";
export type { ViewerHandler, ViewerRoutesOptions } from "./viewer-routes.ts";
export { findViewerAssetsDirectory, loadViewerAssets } from "./viewer-assets.ts";
export type { ViewerAssets } from "./viewer-assets.ts";
export type { ViewerDataSource, ViewerInvocation, ViewerSession, ViewerSessionQuery, ViewerSessionRecord } from "./viewer-data.ts";
export type {
  DialogExchange,
  DialogSection,
  KnowledgeEntity,
  KnowledgeGraphSection,
  KnowledgeProvenance,
  KnowledgeRelation,
  WorkflowSection,
  WorkflowStepShape,
} from "./section-shapes.ts";
export { createEngineViewer, engineViewerSource } from "./engine-viewer.ts";
