//! The one decoder of PVE answers: every read goes through `HttpClient::send` with
//! [`PveEnvelope`].

use cpps_http::Response;
use serde::de::DeserializeOwned;

use crate::Error;

/// Decodes `{"data": …}` answers and PVE's error bodies ([`crate::family::decode_envelope`])
/// into this crate's [`Error`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PveEnvelope;

impl cpps_http::Envelope for PveEnvelope {
    type Error = Error;

    fn decode<T: DeserializeOwned>(&self, response: Response) -> Result<T, Error> {
        Ok(crate::family::decode_envelope(response)?)
    }
}
