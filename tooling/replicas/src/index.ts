export { forEachLimited, freePort, servicePaths, startCallbackReceiver, startReplica, waitFor } from "./cluster.ts";
export type { CallbackReceiver, Delivery, Replica, ReplicaKind, StartReplicaOptions } from "./cluster.ts";
