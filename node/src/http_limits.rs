//! Bounded reads of HTTP answers from servers the node does not control (the model server, the
//! search API).
//!
//! `reqwest::Response::text()` and `bytes()` buffer whatever the server sends: a server that
//! claims a gigabyte, or streams a chunked body that never ends, would have the node allocate
//! until it dies. [`read_body`] reads at most `limit` bytes: a `Content-Length` above it is
//! refused before a byte of the body is read, and a body without one is read chunk by chunk
//! and dropped (closing the connection) as soon as it passes the limit. The error fails that
//! one call; the caller maps it to its own error type. Time is bounded by the client's
//! `reqwest` total timeout (connect to last body byte), which both clients set.

/// Largest answer body read from the model server or the search API. A chat completion of a
/// few thousand tokens or a page of search results is tens of kilobytes; 4 MiB leaves room for
/// verbose servers (log-probabilities, raw page content) and caps what a hostile one costs.
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// The first allocation for a body, whatever its `Content-Length` says: the buffer grows with
/// what actually arrives, not with what the server announced.
const INITIAL_CAPACITY: usize = 64 * 1024;

/// Why a body was not read.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// The body is (or says it is) longer than the limit.
    #[error("response body over {limit} bytes{}", declared.map(|n| format!(" (Content-Length {n})")).unwrap_or_default())]
    TooLarge {
        /// The limit.
        limit: usize,
        /// The `Content-Length` the server announced, when that is what gave it away.
        declared: Option<u64>,
    },
    /// Reading failed (connection lost, the client's timeout).
    #[error("reading the response body failed: {0}")]
    Read(#[from] reqwest::Error),
}

/// The whole body of `response`, at most `limit` bytes (see the module docs).
///
/// # Errors
/// [`BodyError::TooLarge`] when the body is longer than `limit` (announced or actual);
/// [`BodyError::Read`] when the transfer fails.
pub async fn read_body(
    mut response: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, BodyError> {
    if let Some(declared) = response.content_length()
        && declared > limit as u64
    {
        return Err(BodyError::TooLarge {
            limit,
            declared: Some(declared),
        });
    }
    let mut body = Vec::with_capacity(limit.min(INITIAL_CAPACITY));
    while let Some(chunk) = response.chunk().await? {
        if chunk.len() > limit - body.len() {
            return Err(BodyError::TooLarge {
                limit,
                declared: None,
            });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use axum::{body::Body, http::header, response::Response};
    use futures::StreamExt as _;

    use super::*;

    /// An in-process server answering every request with `respond()`; returns its URL.
    async fn serve(respond: impl Fn() -> Response + Clone + Send + Sync + 'static) -> String {
        let app = axum::Router::new().fallback(move || {
            let respond = respond.clone();
            async move { respond() }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        format!("http://{addr}/")
    }

    /// A GET with a total timeout, so a guard that fails ends the test instead of hanging it.
    async fn get(url: &str) -> reqwest::Response {
        let client = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(30))
            .build()
            .unwrap();
        client.get(url).send().await.unwrap()
    }

    #[tokio::test]
    async fn a_body_within_the_limit_is_read_whole() {
        let url = serve(|| Response::new(Body::from(vec![b'x'; 1000]))).await;
        assert_eq!(read_body(get(&url).await, 1000).await.unwrap().len(), 1000);
        assert_eq!(
            read_body(get(&url).await, 1000).await.unwrap(),
            vec![b'x'; 1000]
        );
    }

    #[tokio::test]
    async fn one_byte_over_the_limit_is_refused_with_or_without_content_length() {
        let url = serve(|| Response::new(Body::from(vec![b'x'; 1001]))).await;
        let err = read_body(get(&url).await, 1000).await.unwrap_err();
        assert!(
            matches!(
                err,
                BodyError::TooLarge {
                    limit: 1000,
                    declared: Some(1001)
                }
            ),
            "{err:?}"
        );
        // Chunked (no Content-Length): the limit is found while reading.
        let url = serve(|| {
            let chunks = (0..11).map(|_| Ok::<_, std::io::Error>(vec![b'x'; 100]));
            Response::new(Body::from_stream(futures::stream::iter(chunks)))
        })
        .await;
        let response = get(&url).await;
        assert_eq!(response.content_length(), None, "chunked");
        let err = read_body(response, 1000).await.unwrap_err();
        assert!(
            matches!(
                err,
                BodyError::TooLarge {
                    limit: 1000,
                    declared: None
                }
            ),
            "{err:?}"
        );
        assert_eq!(err.to_string(), "response body over 1000 bytes");
    }

    #[tokio::test]
    async fn an_endless_body_stops_being_read_at_the_limit() {
        let url = serve(|| {
            // "Endless": it stops at 16 times the limit, so a broken guard fails the test
            // instead of filling the machine's memory.
            let endless =
                futures::stream::repeat_with(|| Ok::<_, std::io::Error>(vec![b'x'; 64 * 1024]))
                    .take(16 * MAX_BODY_BYTES / (64 * 1024));
            Response::new(Body::from_stream(endless))
        })
        .await;
        let err = read_body(get(&url).await, MAX_BODY_BYTES)
            .await
            .unwrap_err();
        assert!(
            matches!(err, BodyError::TooLarge { declared: None, .. }),
            "{err:?}"
        );
    }

    #[tokio::test]
    async fn a_huge_content_length_is_refused_before_reading() {
        let url = serve(|| {
            let mut r = Response::new(Body::from_stream(futures::stream::pending::<
                Result<Vec<u8>, std::io::Error>,
            >()));
            r.headers_mut()
                .insert(header::CONTENT_LENGTH, "1000000000".parse().unwrap());
            r
        })
        .await;
        // The body never comes: only the announced length can end this call.
        let err = read_body(get(&url).await, MAX_BODY_BYTES)
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("response body over {MAX_BODY_BYTES} bytes (Content-Length 1000000000)")
        );
    }
}
