//! The one way the node reads a contract view: `.view("name").await` (latest block) or
//! `.view_at(block, "name").await` on a call builder, giving a [`ChainError`] that names the
//! view (a decoded custom error, an RPC failure, or an undecodable answer), so no caller maps
//! errors itself.

use std::{
    future::{Future, IntoFuture},
    pin::Pin,
    task::{Context, Poll},
};

use alloy::{
    contract::{CallBuilder, CallDecoder, EthCall},
    eips::BlockId,
    network::Network,
    providers::Provider,
};

use super::ChainError;

/// A contract view read once, its error mapped by [`ChainError::contract`].
pub trait ViewCall<D: CallDecoder, N: Network> {
    /// Call the view at the latest block.
    fn view(&self, op: &'static str) -> Viewing<'_, D, N>;
    /// Call the view at `block` (several views read at one block agree with each other).
    fn view_at(&self, block: BlockId, op: &'static str) -> Viewing<'_, D, N>;
}

impl<P: Provider<N>, D: CallDecoder, N: Network> ViewCall<D, N> for CallBuilder<P, D, N> {
    fn view(&self, op: &'static str) -> Viewing<'_, D, N> {
        Viewing {
            call: self.call().into_future(),
            op,
        }
    }

    fn view_at(&self, block: BlockId, op: &'static str) -> Viewing<'_, D, N> {
        Viewing {
            call: self.call().block(block).into_future(),
            op,
        }
    }
}

/// The future of [`ViewCall::view`]: the call's answer, or its error naming `op`.
#[must_use = "a view does nothing unless awaited"]
pub struct Viewing<'a, D: CallDecoder, N: Network> {
    call: <EthCall<'a, D, N> as IntoFuture>::IntoFuture,
    op: &'static str,
}

impl<D: CallDecoder, N: Network> Future for Viewing<'_, D, N> {
    type Output = Result<D::CallOutput, ChainError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let op = this.op;
        Pin::new(&mut this.call)
            .poll(cx)
            .map(|answer| answer.map_err(|e| ChainError::contract(op, e)))
    }
}
