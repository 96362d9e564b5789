//! NVIDIA GPU health through NVML and the GPU clusters' state through Kubernetes.
//!
//! This crate will hold: an NVML reader behind a small trait, XID classification, health
//! verdicts, and the Kubernetes view of GPU nodes, Kueue, Argo CD and cert-manager. It does not
//! depend on `cpps-http`. Nothing is implemented yet.
