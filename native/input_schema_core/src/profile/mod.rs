//! The gateway's contracts as profiles over the standard engine: what a
//! contract checks before the compile, in its order, and how it reads the
//! engine's answers. The NIF crate turns them into the contract's terms.
//!
//! `draft2020_12`: `Backplane.AgentRuntime.InputSchema` under `contract:
//! :draft2020_12` (a Draft 2020-12 tool-call boundary).

pub mod draft2020_12;
