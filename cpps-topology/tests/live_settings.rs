//! Each client has one settings shape, its crate's `Config` (issue 30 §1): the endpoints file,
//! the client's documented environment variables and code give the same `Config`, and the
//! same client (its base URL, TLS mode, timeouts and auth, secret redacted, as its `Debug`
//! shows them). The variables are the ones each crate documents after its upstream tool: the
//! bpg Terraform provider's `PROXMOX_VE_*`, `proxmox-backup-client`'s `PBS_*`, golinstor's
//! `LS_*` (`client/client.go`), and `VYOS_*`.
#![cfg(feature = "live")]

use cpps_http::{Limits, SecretSource, SecretString, TlsMode};
use cpps_topology::live::endpoints::{Endpoints, SiteEndpoints};

/// A pin as Proxmox prints one (`pvenode cert info`).
const PIN: &str = "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89";

fn site(yaml: &str) -> SiteEndpoints {
    let text = format!("sites:\n  sp:\n{yaml}");
    let mut endpoints = Endpoints::parse("e.yaml", &text).unwrap();
    endpoints.sites.remove("sp").unwrap()
}

fn lookup(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    move |name| {
        vars.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| (*v).to_owned())
    }
}

/// The clients' `Debug`, which shows their settings and never a secret.
fn shown(client: &dyn std::fmt::Debug, secret: &str) -> String {
    let text = format!("{client:?}");
    assert!(!text.contains(secret), "{text}");
    text
}

#[test]
fn proxmox_file_environment_and_code_give_one_client() {
    const VARS: &[(&str, &str)] = &[
        ("PROXMOX_VE_ENDPOINT", "https://127.0.0.1:8006/"),
        ("PROXMOX_VE_API_TOKEN", "audit@pve!ro=pve-s3cret"),
        ("PROXMOX_VE_FINGERPRINT", PIN),
    ];
    let env = lookup(VARS);
    let file = site(&format!(
        "    proxmox:\n      url: https://127.0.0.1:8006/\n      token_env: PROXMOX_VE_API_TOKEN\n      fingerprint: {PIN}\n"
    ))
    .proxmox
    .unwrap();
    let from_env = cpps_proxmox::Config::from_env(&env).unwrap();
    let code = cpps_proxmox::Config {
        url: "https://127.0.0.1:8006/".to_owned(),
        login: cpps_proxmox::Login::Token(SecretSource::Env("PROXMOX_VE_API_TOKEN".to_owned())),
        tls: TlsMode::pinned(PIN).unwrap(),
        limits: Limits::default(),
        list_max_response_bytes: None,
    };
    assert_eq!(file, from_env);
    assert_eq!(from_env, code);
    let value = cpps_proxmox::Config {
        login: cpps_proxmox::Login::Token(SecretSource::Value(SecretString::from(
            "audit@pve!ro=pve-s3cret".to_owned(),
        ))),
        ..code.clone()
    };
    assert!(!format!("{value:?}").contains("pve-s3cret"));
    let build = |c: &cpps_proxmox::Config| {
        let client = cpps_proxmox::ClientBuilder::from_config(c, &env)
            .unwrap()
            .build()
            .unwrap();
        shown(&client, "pve-s3cret")
    };
    let client = build(&file);
    assert_eq!(client, build(&from_env));
    assert_eq!(client, build(&value));
    assert!(
        client.contains("https://127.0.0.1:8006/api2/json/"),
        "{client}"
    );
    assert!(
        client.contains(&format!("Pinned(Fingerprint({PIN}))")),
        "{client}"
    );
    assert!(client.contains("audit@pve!ro"), "{client}");
}

#[test]
fn pbs_file_environment_and_code_give_one_client() {
    const VARS: &[(&str, &str)] = &[
        ("PBS_REPOSITORY", "audit@pbs!ro@127.0.0.1:store1"),
        ("PBS_PASSWORD", "pbs-s3cret"),
        ("PBS_FINGERPRINT", PIN),
    ];
    let env = lookup(VARS);
    let file = site(&format!(
        "    pbs:\n      repository: audit@pbs!ro@127.0.0.1:store1\n      password_env: PBS_PASSWORD\n      fingerprint: {PIN}\n"
    ))
    .pbs
    .unwrap();
    let from_env = cpps_pbs::Config::from_env(&env).unwrap();
    let code = cpps_pbs::Config {
        repository: "audit@pbs!ro@127.0.0.1:store1".parse().unwrap(),
        password: SecretSource::Env("PBS_PASSWORD".to_owned()),
        tls: TlsMode::pinned(PIN).unwrap(),
        url: None,
        limits: Limits::default(),
        list_max_response_bytes: None,
    };
    assert_eq!(file, from_env);
    assert_eq!(from_env, code);
    let value = cpps_pbs::Config {
        password: SecretSource::Value(SecretString::from("pbs-s3cret".to_owned())),
        ..code.clone()
    };
    let build = |c: &cpps_pbs::Config| {
        let client = cpps_pbs::ClientBuilder::from_config(c, &env)
            .unwrap()
            .build()
            .unwrap();
        shown(&client, "pbs-s3cret")
    };
    let client = build(&file);
    assert_eq!(client, build(&from_env));
    assert_eq!(client, build(&value));
    assert!(
        client.contains("https://127.0.0.1:8007/api2/json/"),
        "{client}"
    );
    assert!(
        client.contains(&format!("Pinned(Fingerprint({PIN}))")),
        "{client}"
    );
}

#[test]
fn linstor_file_environment_and_code_give_one_client() {
    const VARS: &[(&str, &str)] = &[
        ("LS_CONTROLLERS", "http://127.0.0.1:3370,127.0.0.2"),
        ("LS_USERNAME", "admin"),
        ("LS_PASSWORD", "ls-s3cret"),
    ];
    let env = lookup(VARS);
    let file = site(
        "    linstor:\n      controllers: http://127.0.0.1:3370,127.0.0.2\n      user: admin\n      password_env: LS_PASSWORD\n",
    )
    .linstor
    .unwrap();
    let from_env = cpps_linstor::Config::from_env(&env).unwrap();
    let code = cpps_linstor::Config {
        controllers: "http://127.0.0.1:3370,127.0.0.2".to_owned(),
        login: cpps_linstor::Login::Basic {
            user: "admin".to_owned(),
            password: Some(SecretSource::Env("LS_PASSWORD".to_owned())),
        },
        tls: TlsMode::SystemRoots,
        identity: None,
        limits: Limits::default(),
        resources_view_max_response_bytes: None,
    };
    assert_eq!(file, from_env);
    assert_eq!(from_env, code);
    let value = cpps_linstor::Config {
        login: cpps_linstor::Login::Basic {
            user: "admin".to_owned(),
            password: Some(SecretSource::Value(SecretString::from(
                "ls-s3cret".to_owned(),
            ))),
        },
        ..code.clone()
    };
    let build = |c: &cpps_linstor::Config| {
        let client = cpps_linstor::ClientBuilder::from_config(c, &env)
            .unwrap()
            .build()
            .unwrap();
        let urls: Vec<String> = client
            .controllers()
            .iter()
            .map(ToString::to_string)
            .collect();
        (urls, shown(&client, "ls-s3cret"))
    };
    let client = build(&file);
    assert_eq!(client, build(&from_env));
    assert_eq!(client, build(&value));
    // Without TLS material, an entry without a scheme is http (golinstor `defaultScheme`).
    assert_eq!(
        client.0,
        ["http://127.0.0.1:3370/", "http://127.0.0.2:3370/"]
    );
    assert!(client.1.contains("SystemRoots"), "{}", client.1);
}

#[test]
fn vyos_file_environment_and_code_give_one_client() {
    const VARS: &[(&str, &str)] = &[
        ("VYOS_URL", "https://127.0.0.1/"),
        ("VYOS_API_KEY", "vyos-s3cret"),
        ("VYOS_FINGERPRINT", PIN),
    ];
    let env = lookup(VARS);
    let file = site(&format!(
        "    vyos:\n      url: https://127.0.0.1/\n      key_env: VYOS_API_KEY\n      fingerprint: {PIN}\n"
    ))
    .vyos
    .unwrap();
    let from_env = cpps_vyos::Config::from_env(&env).unwrap();
    let code = cpps_vyos::Config {
        url: "https://127.0.0.1/".to_owned(),
        key: SecretSource::Env("VYOS_API_KEY".to_owned()),
        tls: TlsMode::pinned(PIN).unwrap(),
        limits: Limits::default(),
    };
    assert_eq!(file, from_env);
    assert_eq!(from_env, code);
    let value = cpps_vyos::Config {
        key: SecretSource::Value(SecretString::from("vyos-s3cret".to_owned())),
        ..code.clone()
    };
    let build = |c: &cpps_vyos::Config| {
        let client = cpps_vyos::ClientBuilder::from_config(c, &env)
            .unwrap()
            .build()
            .unwrap();
        let http = format!("{:?}", client.http());
        (shown(&client, "vyos-s3cret"), shown(&http, "vyos-s3cret"))
    };
    let client = build(&file);
    assert_eq!(client, build(&from_env));
    assert_eq!(client, build(&value));
    assert!(client.0.contains("https://127.0.0.1/"), "{}", client.0);
    assert!(
        client.1.contains(&format!("Pinned(Fingerprint({PIN}))")),
        "{}",
        client.1
    );
}

/// Limits in the file are read in seconds; a secret written inline is still refused.
#[test]
fn the_file_reads_limits_and_refuses_inline_secrets() {
    let file = site(
        "    vyos:\n      url: https://127.0.0.1/\n      key_file: /run/k\n      limits: { deadline: 7, max_response_bytes: 1024 }\n",
    )
    .vyos
    .unwrap();
    assert_eq!(file.key, SecretSource::File("/run/k".into()));
    assert_eq!(
        file.limits.deadline,
        Some(std::time::Duration::from_secs(7))
    );
    assert_eq!(file.limits.max_response_bytes, Some(1024));
    let inline = Endpoints::parse(
        "e.yaml",
        "sites:\n  sp:\n    pbs:\n      repository: a@pbs@h:s\n      password: hunter2\n",
    )
    .unwrap_err();
    assert_eq!(
        inline.to_string(),
        "e.yaml:5:17: `sites.sp.pbs.password` is a secret written inline; name an environment variable with `password_env` or a file with `password_file` instead"
    );
    assert!(!format!("{inline:?}").contains("hunter2"));
}
