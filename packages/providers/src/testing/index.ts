export { createScriptedModel } from "./scripted-model.ts";
export type {
  ScriptedCall,
  ScriptedModel,
  ScriptedModelOptions,
  ScriptedModelScript,
  ScriptedResponder,
} from "./scripted-model.ts";
export { createFakeModelServer } from "./fake-model-server.ts";
export type { FakeModelServer, FakeModelServerOptions } from "./fake-model-server.ts";
export { respondBySchemaName } from "./fake-respond.ts";
export type {
  FakeDelayReply,
  FakeFailureReply,
  FakeHangUpReply,
  FakeModelMessage,
  FakeModelRequest,
  FakeObjectReply,
  FakeReply,
  FakeResponder,
  FakeRespond,
  FakeStreamOptions,
  FakeTextReply,
  FakeWire,
} from "./fake-model-request.ts";
export { FakePromptCache } from "./fake-prompt-cache.ts";
export type { FakeCacheOutcome, FakeCachePrompt } from "./fake-prompt-cache.ts";
