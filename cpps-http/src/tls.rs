//! TLS modes: system roots, a CA bundle, a pinned leaf certificate, or insecure by name.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use rustls::DigitallySignedStruct;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use sha2::{Digest, Sha256};

use crate::Error;

/// How the client verifies the server's certificate.
///
/// Verification is on unless [`TlsMode::DangerAcceptInvalidCerts`] is chosen by name.
#[derive(Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TlsMode {
    /// Verify the chain against the operating system's trust store (the default).
    #[default]
    SystemRoots,
    /// Verify the chain against the certificates of one PEM file only (for example Proxmox's
    /// `/etc/pve/pve-root-ca.pem`).
    CaFile(PathBuf),
    /// Verify the chain against these PEM-encoded certificates only.
    CaPem(Vec<u8>),
    /// Accept the server only if the SHA-256 fingerprint of its leaf certificate equals this pin,
    /// whoever signed it: the way Proxmox users trust self-signed nodes. Chain, expiry and name
    /// are not checked; the handshake signature is.
    Pinned(Fingerprint),
    /// Accept any certificate. Only for a lab: the client logs a warning when it is built.
    DangerAcceptInvalidCerts,
}

impl fmt::Debug for TlsMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TlsMode::SystemRoots => f.write_str("SystemRoots"),
            TlsMode::CaFile(path) => f.debug_tuple("CaFile").field(path).finish(),
            TlsMode::CaPem(pem) => write!(f, "CaPem({} bytes)", pem.len()),
            TlsMode::Pinned(fp) => f.debug_tuple("Pinned").field(fp).finish(),
            TlsMode::DangerAcceptInvalidCerts => f.write_str("DangerAcceptInvalidCerts"),
        }
    }
}

impl TlsMode {
    /// Pins the server's leaf certificate by its SHA-256 fingerprint, written as Proxmox prints
    /// it (`AA:BB:…`) or without colons, in any case.
    pub fn pinned(fingerprint: &str) -> Result<Self, Error> {
        Ok(TlsMode::Pinned(fingerprint.parse()?))
    }

    /// Trusts only the certificates in this PEM file.
    pub fn ca_file(path: impl Into<PathBuf>) -> Self {
        TlsMode::CaFile(path.into())
    }

    /// Accepts any certificate. The name says what it does; the client logs a warning.
    pub fn danger_accept_invalid_certs() -> Self {
        TlsMode::DangerAcceptInvalidCerts
    }

    /// Reads the TLS mode from the environment variables named by `vars`, through `lookup`.
    ///
    /// This is the one place where every client reads its TLS variables: a CA file
    /// (`PBS_CA_FILE`-style path), CA certificates as PEM text (LINSTOR's `LS_ROOT_CA`), a pinned
    /// fingerprint (`PBS_FINGERPRINT`, `VYOS_FINGERPRINT`) and an insecure switch
    /// (`PROXMOX_VE_INSECURE`). Returns `Ok(None)` when none is set. Setting two of them is an
    /// error that names both variables; so is an invalid value, naming its variable. An insecure
    /// switch set to false counts as unset.
    ///
    /// ```
    /// use cpps_http::{TlsMode, TlsVars};
    ///
    /// let vars = TlsVars::new().fingerprint("PBS_FINGERPRINT").insecure("PBS_INSECURE");
    /// let env = |name: &str| (name == "PBS_INSECURE").then(|| "true".to_owned());
    /// assert_eq!(TlsMode::from_env(&vars, &env)?, Some(TlsMode::DangerAcceptInvalidCerts));
    /// # Ok::<(), cpps_http::Error>(())
    /// ```
    pub fn from_env(vars: &TlsVars, lookup: crate::env::Lookup<'_>) -> Result<Option<Self>, Error> {
        let mut chosen: Vec<(&str, TlsMode)> = Vec::new();
        if let Some(name) = vars.ca_file.as_deref()
            && let Some(path) = crate::env::get(lookup, name)
        {
            chosen.push((name, TlsMode::CaFile(path.into())));
        }
        if let Some(name) = vars.ca_pem.as_deref()
            && let Some(pem) = crate::env::get(lookup, name)
        {
            chosen.push((name, TlsMode::CaPem(pem.into_bytes())));
        }
        if let Some(name) = vars.fingerprint.as_deref()
            && let Some(fingerprint) = crate::env::get(lookup, name)
        {
            let pin = fingerprint.parse().map_err(|e: Error| Error::Tls {
                reason: format!("{name}: {e}"),
            })?;
            chosen.push((name, TlsMode::Pinned(pin)));
        }
        if let Some(name) = vars.insecure.as_deref()
            && crate::env::get_bool(lookup, name).map_err(|e| Error::Tls {
                reason: match e {
                    Error::Config { reason } => reason,
                    other => other.to_string(),
                },
            })? == Some(true)
        {
            chosen.push((name, TlsMode::DangerAcceptInvalidCerts));
        }
        match chosen.len() {
            0 => Ok(None),
            1 => Ok(chosen.pop().map(|(_, mode)| mode)),
            _ => Err(Error::Tls {
                reason: format!(
                    "{} and {} are both set: they choose different ways to verify the server, set only one",
                    chosen[0].0, chosen[1].0
                ),
            }),
        }
    }
}

/// The names of the environment variables a client reads its TLS mode from
/// ([`TlsMode::from_env`]). Each service crate names its own: `TlsVars::new()
/// .fingerprint("PBS_FINGERPRINT")`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use]
pub struct TlsVars {
    ca_file: Option<String>,
    ca_pem: Option<String>,
    fingerprint: Option<String>,
    insecure: Option<String>,
}

impl TlsVars {
    /// No variables yet.
    pub fn new() -> Self {
        TlsVars::default()
    }

    /// A variable holding the path of a PEM file of trusted CA certificates.
    pub fn ca_file(mut self, name: impl Into<String>) -> Self {
        self.ca_file = Some(name.into());
        self
    }

    /// A variable holding trusted CA certificates as PEM text.
    pub fn ca_pem(mut self, name: impl Into<String>) -> Self {
        self.ca_pem = Some(name.into());
        self
    }

    /// A variable holding the SHA-256 fingerprint of the server's leaf certificate.
    pub fn fingerprint(mut self, name: impl Into<String>) -> Self {
        self.fingerprint = Some(name.into());
        self
    }

    /// A boolean variable that turns certificate verification off.
    pub fn insecure(mut self, name: impl Into<String>) -> Self {
        self.insecure = Some(name.into());
        self
    }

    /// The variables' names, for documentation and error messages.
    pub fn names(&self) -> Vec<&str> {
        [
            &self.ca_file,
            &self.ca_pem,
            &self.fingerprint,
            &self.insecure,
        ]
        .into_iter()
        .filter_map(|name| name.as_deref())
        .collect()
    }
}

/// A SHA-256 fingerprint of a DER-encoded certificate.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint([u8; 32]);

impl Fingerprint {
    /// The fingerprint of a DER-encoded certificate.
    pub fn of_der(der: &[u8]) -> Self {
        Fingerprint(Sha256::digest(der).into())
    }

    /// The 32 bytes of the digest.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl FromStr for Fingerprint {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        let compact: String = s.trim().chars().filter(|c| *c != ':').collect();
        let bytes = hex::decode(&compact).map_err(|_| Error::Tls {
            reason: format!(
                "fingerprint `{s}` is not hexadecimal (expected 32 bytes as `AA:BB:…` or 64 hex digits)"
            ),
        })?;
        let array: [u8; 32] = bytes.try_into().map_err(|b: Vec<u8>| Error::Tls {
            reason: format!(
                "fingerprint `{s}` has {} bytes; a SHA-256 fingerprint has 32",
                b.len()
            ),
        })?;
        Ok(Fingerprint(array))
    }
}

impl fmt::Display for Fingerprint {
    /// Formats as Proxmox prints it: upper-case hex pairs joined by colons.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, byte) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(":")?;
            }
            write!(f, "{byte:02X}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fingerprint({self})")
    }
}

/// A client certificate and its private key, for servers that authenticate clients by TLS
/// (LINSTOR can). The key is never printed.
#[derive(Clone)]
pub struct ClientIdentity {
    cert_chain_pem: Vec<u8>,
    key_pem: Vec<u8>,
}

impl ClientIdentity {
    /// A client identity from a PEM certificate chain and a PEM private key.
    pub fn from_pem(cert_chain_pem: impl Into<Vec<u8>>, key_pem: impl Into<Vec<u8>>) -> Self {
        ClientIdentity {
            cert_chain_pem: cert_chain_pem.into(),
            key_pem: key_pem.into(),
        }
    }

    /// A client identity read from a certificate file and a key file (PEM).
    pub fn from_files(cert: &Path, key: &Path) -> Result<Self, Error> {
        let read = |path: &Path| {
            std::fs::read(path).map_err(|e| Error::Tls {
                reason: format!("cannot read {}: {e}", path.display()),
            })
        };
        Ok(Self::from_pem(read(cert)?, read(key)?))
    }
}

impl fmt::Debug for ClientIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientIdentity")
            .field(
                "cert_chain_pem",
                &format_args!("{} bytes", self.cert_chain_pem.len()),
            )
            .field("key_pem", &"[redacted]")
            .finish()
    }
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn parse_certs(pem: &[u8], origin: &str) -> Result<Vec<CertificateDer<'static>>, Error> {
    let certs: Vec<_> = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<_, _>>()
        .map_err(|e| Error::Tls {
            reason: format!("{origin}: invalid PEM certificate: {e}"),
        })?;
    if certs.is_empty() {
        return Err(Error::Tls {
            reason: format!("{origin}: no certificate found"),
        });
    }
    Ok(certs)
}

fn roots_from(
    certs: Vec<CertificateDer<'static>>,
    origin: &str,
) -> Result<rustls::RootCertStore, Error> {
    let mut roots = rustls::RootCertStore::empty();
    let (added, _ignored) = roots.add_parsable_certificates(certs);
    if added == 0 {
        return Err(Error::Tls {
            reason: format!("{origin}: no usable certificate"),
        });
    }
    Ok(roots)
}

/// Builds the rustls configuration for a mode and an optional client identity.
pub(crate) fn client_config(
    mode: &TlsMode,
    identity: Option<&ClientIdentity>,
) -> Result<rustls::ClientConfig, Error> {
    let provider = provider();
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Tls {
            reason: format!("protocol versions: {e}"),
        })?;
    let builder = match mode {
        TlsMode::SystemRoots => {
            let loaded = rustls_native_certs::load_native_certs();
            if loaded.certs.is_empty() {
                return Err(Error::Tls {
                    reason: "the system trust store holds no certificate".to_owned(),
                });
            }
            builder.with_root_certificates(roots_from(loaded.certs, "system trust store")?)
        }
        TlsMode::CaFile(path) => {
            let pem = std::fs::read(path).map_err(|e| Error::Tls {
                reason: format!("cannot read CA file {}: {e}", path.display()),
            })?;
            let origin = format!("CA file {}", path.display());
            builder.with_root_certificates(roots_from(parse_certs(&pem, &origin)?, &origin)?)
        }
        TlsMode::CaPem(pem) => {
            builder.with_root_certificates(roots_from(parse_certs(pem, "CA PEM")?, "CA PEM")?)
        }
        TlsMode::Pinned(fingerprint) => {
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(LeafVerifier {
                    pin: Some(*fingerprint),
                    algorithms: provider.signature_verification_algorithms,
                }))
        }
        TlsMode::DangerAcceptInvalidCerts => {
            tracing::warn!(
                "TLS certificate verification is disabled (insecure mode asked for by name)"
            );
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(LeafVerifier {
                    pin: None,
                    algorithms: provider.signature_verification_algorithms,
                }))
        }
    };
    let mut config = match identity {
        None => builder.with_no_client_auth(),
        Some(identity) => {
            let chain = parse_certs(&identity.cert_chain_pem, "client certificate")?;
            let key = PrivateKeyDer::from_pem_slice(&identity.key_pem).map_err(|_| Error::Tls {
                reason: "client key: no usable PEM private key".to_owned(),
            })?;
            builder
                .with_client_auth_cert(chain, key)
                .map_err(|e| Error::Tls {
                    reason: format!("client certificate: {e}"),
                })?
        }
    };
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// Verifies the server by its leaf certificate alone: the one whose SHA-256 digest is the pin, or
/// any certificate when there is no pin (the insecure mode). Either way the handshake signature is
/// checked against the certificate's key, so the server must hold that key.
#[derive(Debug)]
struct LeafVerifier {
    pin: Option<Fingerprint>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for LeafVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(pin) = self.pin else {
            return Ok(ServerCertVerified::assertion());
        };
        let seen = Fingerprint::of_der(end_entity.as_ref());
        // A fingerprint is public data, so a plain comparison leaks nothing worth a timing attack.
        if seen == pin {
            Ok(ServerCertVerified::assertion())
        } else {
            tracing::warn!(expected = %pin, seen = %seen, "server certificate does not match the pinned fingerprint");
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::ApplicationVerificationFailure,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn fingerprint_accepts_colons_and_any_case() {
        let plain: Fingerprint = HEX.parse().unwrap();
        let upper_colons: String = HEX
            .to_uppercase()
            .as_bytes()
            .chunks(2)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect::<Vec<_>>()
            .join(":");
        let colons: Fingerprint = upper_colons.parse().unwrap();
        assert_eq!(plain, colons);
        assert_eq!(plain.to_string(), upper_colons);
        assert_eq!(plain.as_bytes()[0], 0x01);
    }

    #[test]
    fn fingerprint_rejects_wrong_length_and_non_hex() {
        let short = "AA:BB".parse::<Fingerprint>().unwrap_err().to_string();
        assert!(short.contains("has 2 bytes"), "{short}");
        let bad = "zz"
            .repeat(32)
            .parse::<Fingerprint>()
            .unwrap_err()
            .to_string();
        assert!(bad.contains("not hexadecimal"), "{bad}");
    }
}
