//! Live events: what the node is doing, as an ordered, bounded log that web pages follow.
//!
//! The pipeline publishes an event when a question changes status, when a juror's ballot
//! arrives and when a report is written; the web view streams them to browsers as server-sent
//! events (`GET /events`). Three rules shape it:
//!
//! - **A slow browser never slows the committee.** [`LiveEvents::publish`] appends to a ring
//!   buffer under a short lock and bumps a `watch` counter; it never waits for a reader. Each
//!   connection reads from the buffer at its own pace.
//! - **Ordered ids, resumable.** Every event gets the next id (1, 2, ...). A reconnecting
//!   browser sends `Last-Event-ID` and gets exactly the events after it.
//! - **Bounded.** The buffer keeps the last [`DEFAULT_CAPACITY`] events and at most
//!   [`DEFAULT_MAX_BYTES`] of payload (a ballot carries a model's text, so event sizes are the
//!   model server's choice, not ours). A reader that fell further behind (or resumes from an
//!   id that is gone) is told to resync — reload what it shows — instead of being fed an
//!   incomplete history. A connection holds at most one batch of events besides
//!   ([`MAX_BATCH_BYTES`]), and is pulled at the pace its socket drains, so a slow browser
//!   costs no more than that.

use std::{collections::VecDeque, sync::Mutex};

use serde::Serialize;
use tokio::sync::watch;

/// Events kept for readers that are behind or reconnecting (about a minute of a busy node's
/// ballots; each event is a few hundred bytes, so this is a few MB at most).
pub const DEFAULT_CAPACITY: usize = 4096;

/// Payload bytes kept for readers, whatever the events' sizes: the newest event is always
/// kept, older ones are dropped (readers behind them resync) while the total is over this.
pub const DEFAULT_MAX_BYTES: usize = 16 * 1024 * 1024;

/// Payload bytes handed to one reader per call of [`LiveEvents::since`] (one event at least).
pub const MAX_BATCH_BYTES: usize = 1024 * 1024;

/// One published event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveEvent {
    /// Position in the log, from 1, without gaps.
    pub id: u64,
    /// The SSE event name (`question`, `ballot`, `report`).
    pub kind: &'static str,
    /// The JSON payload.
    pub data: String,
}

/// What a reader gets after the id it has seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Since {
    /// The events after it, in order (possibly none).
    Events(Vec<LiveEvent>),
    /// Some events after it are no longer buffered: reload, then continue from `oldest`.
    Resync {
        /// The id of the oldest buffered event, where the reader continues.
        oldest: u64,
    },
}

/// The node's event log (see the module docs).
#[derive(Debug)]
pub struct LiveEvents {
    buffer: Mutex<Buffer>,
    capacity: usize,
    max_bytes: usize,
    /// The id of the latest event (0 = none yet); readers wait on its changes.
    latest: watch::Sender<u64>,
}

/// The buffered events and the sum of their payload sizes.
#[derive(Debug, Default)]
struct Buffer {
    events: VecDeque<LiveEvent>,
    bytes: usize,
}

impl Default for LiveEvents {
    fn default() -> Self {
        Self::with_capacity(DEFAULT_CAPACITY)
    }
}

impl LiveEvents {
    /// A log keeping the last `capacity` events (at least 1), [`DEFAULT_MAX_BYTES`] at most.
    pub fn with_capacity(capacity: usize) -> Self {
        Self::with_limits(capacity, DEFAULT_MAX_BYTES)
    }

    /// A log keeping the last `capacity` events (at least 1) and, of those, as many of the
    /// newest as fit in `max_bytes` of payload (the newest one always).
    pub fn with_limits(capacity: usize, max_bytes: usize) -> Self {
        Self {
            buffer: Mutex::new(Buffer {
                events: VecDeque::with_capacity(capacity.clamp(1, 1024)),
                bytes: 0,
            }),
            capacity: capacity.max(1),
            max_bytes,
            latest: watch::Sender::new(0),
        }
    }

    /// Append an event; returns its id. Never blocks on readers. A payload that cannot be
    /// serialised (it never happens for the node's own types) is logged and dropped.
    pub fn publish(&self, kind: &'static str, payload: &impl Serialize) -> Option<u64> {
        let data = match serde_json::to_string(payload) {
            Ok(data) => data,
            Err(e) => {
                tracing::warn!(target: "veritas::live", kind, error = %e, "event not serialisable");
                return None;
            }
        };
        // A poisoned lock only means another publisher panicked mid-push; the deque is intact.
        let mut buffer = self.buffer.lock().unwrap_or_else(|p| p.into_inner());
        let id = buffer
            .events
            .back()
            .map_or(*self.latest.borrow() + 1, |e| e.id + 1);
        buffer.bytes += data.len();
        buffer.events.push_back(LiveEvent { id, kind, data });
        while buffer.events.len() > self.capacity
            || (buffer.bytes > self.max_bytes && buffer.events.len() > 1)
        {
            if let Some(old) = buffer.events.pop_front() {
                buffer.bytes -= old.data.len();
            }
        }
        drop(buffer);
        self.latest.send_replace(id);
        Some(id)
    }

    /// The events after `last_seen` (0 = from the start of the buffer), at most `max` and
    /// at most [`MAX_BATCH_BYTES`] of payload (one event at least), so what one connection
    /// holds while its client reads is bounded. `last_seen` comes from a client's
    /// `Last-Event-ID`: any `u64` is answered, one beyond the latest event with nothing.
    pub fn since(&self, last_seen: u64, max: usize) -> Since {
        let buffer = self.buffer.lock().unwrap_or_else(|p| p.into_inner());
        let Some(oldest) = buffer.events.front().map(|e| e.id) else {
            return Since::Events(Vec::new());
        };
        let next = last_seen.saturating_add(1);
        if next < oldest && last_seen != 0 {
            return Since::Resync { oldest };
        }
        let skip = usize::try_from(next.saturating_sub(oldest)).unwrap_or(usize::MAX);
        let mut bytes = 0usize;
        let batch = buffer
            .events
            .iter()
            .skip(skip)
            .take(max)
            .take_while(|e| {
                let first = bytes == 0;
                bytes = bytes.saturating_add(e.data.len().max(1));
                first || bytes <= MAX_BATCH_BYTES
            })
            .cloned()
            .collect();
        Since::Events(batch)
    }

    /// The id of the latest event (0 = none).
    pub fn latest(&self) -> u64 {
        *self.latest.borrow()
    }

    /// A receiver that wakes when new events are published.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.latest.subscribe()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn ids(since: Since) -> Vec<u64> {
        match since {
            Since::Events(events) => events.iter().map(|e| e.id).collect(),
            Since::Resync { oldest } => panic!("resync from {oldest}"),
        }
    }

    #[test]
    fn ids_are_ordered_without_gaps_and_resume_after_the_last_seen() {
        let log = LiveEvents::with_capacity(10);
        for i in 0..5 {
            assert_eq!(log.publish("ballot", &i), Some(i + 1));
        }
        assert_eq!(ids(log.since(0, 100)), vec![1, 2, 3, 4, 5]);
        assert_eq!(ids(log.since(3, 100)), vec![4, 5]);
        assert_eq!(ids(log.since(5, 100)), Vec::<u64>::new());
        assert_eq!(ids(log.since(1, 2)), vec![2, 3]);
        assert_eq!(log.latest(), 5);
    }

    #[test]
    fn the_buffer_is_bounded_and_a_reader_behind_it_is_told_to_resync() {
        let log = LiveEvents::with_capacity(3);
        for i in 0..10 {
            log.publish("ballot", &i);
        }
        assert_eq!(ids(log.since(7, 100)), vec![8, 9, 10]);
        assert_eq!(log.since(2, 100), Since::Resync { oldest: 8 });
        // A new reader (no id) starts at the oldest buffered event.
        assert_eq!(ids(log.since(0, 100)), vec![8, 9, 10]);
    }

    #[test]
    fn any_last_event_id_is_answered() {
        let log = LiveEvents::with_capacity(3);
        for i in 0..5 {
            log.publish("ballot", &i);
        }
        // A client's `Last-Event-ID` is any u64 it likes.
        assert_eq!(log.since(u64::MAX, 100), Since::Events(Vec::new()));
        assert_eq!(log.since(u64::MAX - 1, 100), Since::Events(Vec::new()));
        assert_eq!(log.since(1_000, 100), Since::Events(Vec::new()));
    }

    #[test]
    fn the_buffer_is_bounded_in_bytes_whatever_the_event_sizes() {
        let log = LiveEvents::with_limits(1000, 10_000);
        let big = "x".repeat(3_000);
        for _ in 0..10 {
            log.publish("ballot", &big);
        }
        let kept = match log.since(0, 1000) {
            Since::Events(events) => events,
            Since::Resync { oldest } => panic!("resync from {oldest}"),
        };
        // Each payload is 3,002 bytes (a JSON string): three fit in 10,000.
        assert_eq!(
            kept.iter().map(|e| e.id).collect::<Vec<_>>(),
            vec![8, 9, 10]
        );
        assert!(kept.iter().map(|e| e.data.len()).sum::<usize>() <= 10_000);
        assert_eq!(log.since(2, 100), Since::Resync { oldest: 8 });
        // One event larger than the whole budget is still delivered, alone.
        let huge = "y".repeat(20_000);
        assert_eq!(log.publish("ballot", &huge), Some(11));
        assert_eq!(ids(log.since(10, 100)), vec![11]);
        assert_eq!(log.since(9, 100), Since::Resync { oldest: 11 });
        // The next event pushes it out: the total would be over the budget.
        assert_eq!(log.publish("ballot", &1), Some(12));
        assert_eq!(ids(log.since(11, 100)), vec![12]);
        assert_eq!(log.since(10, 100), Since::Resync { oldest: 12 });
    }

    #[test]
    fn a_batch_is_bounded_in_bytes() {
        let log = LiveEvents::default();
        let chunk = "z".repeat(MAX_BATCH_BYTES / 3);
        for _ in 0..5 {
            log.publish("ballot", &chunk);
        }
        // Each payload is a third of the batch plus two quotes: two fit.
        assert_eq!(ids(log.since(0, 100)), vec![1, 2]);
        assert_eq!(ids(log.since(2, 100)), vec![3, 4]);
        let huge = "h".repeat(MAX_BATCH_BYTES * 2);
        log.publish("ballot", &huge);
        assert_eq!(ids(log.since(5, 100)), vec![6], "one event at least");
    }

    #[tokio::test]
    async fn publishing_wakes_subscribers_and_never_waits_for_them() {
        let log = std::sync::Arc::new(LiveEvents::with_capacity(2));
        let mut rx = log.subscribe();
        // Nobody reads: a thousand publishes still return at once.
        for i in 0..1000 {
            log.publish("ballot", &i);
        }
        rx.changed().await.unwrap();
        assert_eq!(*rx.borrow(), 1000);
    }
}
