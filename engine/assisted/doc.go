// Package assisted holds the facts of assisted-service, the bare-metal
// operator's agent controller (BMAC) and Hive that an installation engine
// reproduces: host and cluster statuses with their status-info texts, the
// host and cluster validations with their ids, thresholds and messages, the
// hardware requirements per role, the installation stages per role with the
// progress arithmetic and stage timeouts, and the conditions written on
// AgentClusterInstall, ClusterDeployment, Agent and InfraEnv.
//
// Each fact lives in one table here and cites the upstream file it comes
// from: assisted-service at 063b257 unless the comment names Hive (c02e517)
// or the baremetal-operator (02aa505); where the upstream documents and
// code differ, the code is followed. The package does no I/O and keeps no
// state: the simulated engine (engine/sim) runs the state machines on top of
// it, and a driver for a real hub reads the same vocabulary.
//
// Validations are pure functions of an input that describes one host or one
// cluster (HostInput, ClusterInput); conditions are pure functions of the
// status they summarize (ACIConditions, AgentConditions, InfraEnvCondition,
// ClusterDeploymentConditions). Callers keep the transition times: a
// condition's time moves only when its status, reason or message changes
// (SetCondition).
package assisted
