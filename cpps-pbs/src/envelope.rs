//! The one decoder of PBS answers: every read goes through `HttpClient::send` with
//! [`PbsEnvelope`].

use cpps_http::Response;
use serde::de::DeserializeOwned;

use crate::Error;

/// Decodes `{"data": …}` answers and PBS's error bodies (the Proxmox-family decoder,
/// `cpps_proxmox_family::decode_envelope`, which `proxmox-rest-server` answers share with
/// PVE) into this crate's [`Error`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PbsEnvelope;

impl cpps_http::Envelope for PbsEnvelope {
    type Error = Error;

    fn decode<T: DeserializeOwned>(&self, response: Response) -> Result<T, Error> {
        Ok(cpps_proxmox_family::decode_envelope(response)?)
    }
}
