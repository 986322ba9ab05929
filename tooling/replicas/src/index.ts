export {
  createJsonPoster,
  forEachLimited,
  freePort,
  servicePaths,
  startCallbackReceiver,
  startReplica,
  waitFor,
} from "./cluster.ts";
export type {
  CallbackReceiver,
  Delivery,
  JsonAnswer,
  JsonPoster,
  Replica,
  ReplicaKind,
  StartReplicaOptions,
} from "./cluster.ts";
