//! The values of the architecture's decision table ("Decisões arquiteturais (resumo)") that a
//! component states in a field of its own, so that DOC-002 judges a decision on structure rather
//! than on a word someone may or may not write in a free-text `tool`: a pool's storage backend,
//! an ArgoCD's repository layout, and a capability's IaC tool, secrets tool, remote-access tools,
//! DNS failover and edge defense. Each field is optional; each value is one of the decided or
//! rejected options of its row.

use serde::{Deserialize, Serialize};

cpps_named_enum::named_enum! {
    /// The replicated storage of a pool (row «Storage replicado»: LINSTOR + DRBD; Ceph rejected).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum StorageBackend {
        /// LINSTOR + DRBD, the decision.
        LinstorDrbd => "linstor_drbd",
        /// Ceph, the rejected alternative.
        Ceph => "ceph",
    }
}

cpps_named_enum::named_enum! {
    /// How the GitOps repositories are laid out (row «GitOps repo»: monorepo `colabhd/devops`;
    /// multi-repo rejected).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum RepoLayout {
        /// One repository for infrastructure and apps, the decision.
        Monorepo => "monorepo",
        /// One repository per concern, the rejected alternative.
        MultiRepo => "multi_repo",
    }
}

cpps_named_enum::named_enum! {
    /// The IaC tool for Proxmox (row «IaC Proxmox»: Pulumi (Python); Terraform/OpenTofu
    /// rejected).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum IacTool {
        /// Pulumi (Python), the decision.
        Pulumi => "pulumi",
        /// Terraform, rejected.
        Terraform => "terraform",
        /// OpenTofu, rejected.
        Opentofu => "opentofu",
    }
}

cpps_named_enum::named_enum! {
    /// The secrets tool (row «Secrets»: SOPS + age (MVP) → ESO + Vault (futuro); Sealed Secrets
    /// rejected).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum SecretsTool {
        /// SOPS + age, the MVP decision.
        SopsAge => "sops_age",
        /// External Secrets Operator + Vault, the decision's future.
        EsoVault => "eso_vault",
        /// Sealed Secrets, rejected.
        SealedSecrets => "sealed_secrets",
    }
}

cpps_named_enum::named_enum! {
    /// A tool for people to reach the sites (rows «Multi-site federação humana»: WireGuard via
    /// VyOS → Headscale; Tailscale managed rejected; «Acesso seguro humano»: SSH keys + Authentik
    /// LDAP → Octelium/Teleport futuro; Octelium now rejected).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum RemoteAccess {
        /// WireGuard directly through VyOS, the MVP decision.
        WireguardVyos => "wireguard_vyos",
        /// Headscale, the decision's future.
        Headscale => "headscale",
        /// Tailscale managed, rejected.
        Tailscale => "tailscale",
        /// SSH keys + Authentik LDAP, the MVP decision.
        SshLdap => "ssh_ldap",
        /// Octelium: the decision's future, rejected now.
        Octelium => "octelium",
        /// Teleport: the decision's future.
        Teleport => "teleport",
    }
}

cpps_named_enum::named_enum! {
    /// How DNS fails over between sites (row «Failover DNS»: Cloudflare Tunnel; DNS round-robin,
    /// Cloudflare LB pago and External DNS Operator rejected).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum DnsFailover {
        /// Cloudflare Tunnel, the decision.
        CloudflareTunnel => "cloudflare_tunnel",
        /// DNS round-robin, rejected.
        DnsRoundRobin => "dns_round_robin",
        /// Cloudflare Load Balancing (paid), rejected.
        CloudflareLb => "cloudflare_lb",
        /// External DNS Operator, rejected.
        ExternalDnsOperator => "external_dns_operator",
    }
}

cpps_named_enum::named_enum! {
    /// A piece of the edge defense (row «Defesa de borda»: VyOS rules + Cloudflare proxy +
    /// fail2ban (MVP) → CrowdSec futuro; CrowdSec now rejected).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum EdgeDefense {
        /// VyOS firewall rules.
        VyosRules => "vyos_rules",
        /// The Cloudflare proxy.
        CloudflareProxy => "cloudflare_proxy",
        /// fail2ban.
        Fail2ban => "fail2ban",
        /// CrowdSec: the decision's future, rejected now.
        Crowdsec => "crowdsec",
    }
}

/// A capability's stated options of the decision table (each optional).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CapabilityChoices {
    /// The IaC tool. Location: `meta.at("iac_tool")`.
    pub iac_tool: Option<IacTool>,
    /// The secrets tool. Location: `meta.at("secrets_tool")`.
    pub secrets_tool: Option<SecretsTool>,
    /// The remote-access tools. Location: `meta.at("remote_access")`.
    pub remote_access: Vec<RemoteAccess>,
    /// The DNS failover. Location: `meta.at("dns_failover")`.
    pub dns_failover: Option<DnsFailover>,
    /// The edge defense. Location: `meta.at("edge_defense")`.
    pub edge_defense: Vec<EdgeDefense>,
}

impl CapabilityChoices {
    /// Each stated value as `(field, value)`, the names of the file.
    pub fn pairs(&self) -> Vec<(&'static str, &'static str)> {
        let mut out = Vec::new();
        out.extend(self.iac_tool.map(|v| ("iac_tool", v.as_str())));
        out.extend(self.secrets_tool.map(|v| ("secrets_tool", v.as_str())));
        out.extend(
            self.remote_access
                .iter()
                .map(|v| ("remote_access", v.as_str())),
        );
        out.extend(self.dns_failover.map(|v| ("dns_failover", v.as_str())));
        out.extend(
            self.edge_defense
                .iter()
                .map(|v| ("edge_defense", v.as_str())),
        );
        out
    }
}
