//! Kubernetes.
