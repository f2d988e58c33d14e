//! `veritas court`: the reference court's (`VeritasCourt`) side of a case, as its judges and
//! anyone else drive it.
//!
//! ```text
//! veritas court rule 0 1          # the judge of dispute 0's current round rules 1 (verdict stands)
//! veritas court execute 0         # after the appeal period: the ruling goes to the oracle
//! veritas court withdraw          # a judge takes the fees of the rounds it ruled
//! ```
//!
//! The court is `--court ADDR`, by default the arbitrator of the oracle's parameter set in
//! force. Rulings for the oracle: 0 refuse (the question defaults), 1 the verdict stands, 2 YES,
//! 3 NO, 4 unresolvable, 5 the disputer's triple (disputes only).

use alloy::primitives::{Address, U256};
use anyhow::bail;
use clap::{Args, Subcommand};
use serde_json::json;

use super::output::Output;
use super::session::{Common, Session, refused, small, utc, wei, with_tx};
use crate::chain::ViewCall;
use crate::{
    chain::{ChainError, ChainProvider},
    contract::{
        IVeritasOracle,
        court::IVeritasCourt,
        roles::{self, RulingState},
    },
};

/// `veritas court` arguments.
#[derive(Debug, Args)]
pub struct CourtArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: Action,
}

/// The court's commands.
#[derive(Debug, Subcommand)]
pub enum Action {
    /// As the judge of its current round, rule on a dispute.
    Rule(RuleArgs),
    /// After the appeal period, pass a dispute's ruling to the oracle (anyone may).
    Execute(ExecuteArgs),
    /// As a judge, withdraw the fees of the rounds you ruled.
    Withdraw(CourtOptions),
}

/// Options of every court command.
#[derive(Debug, Args)]
pub struct CourtOptions {
    /// The court (default: the arbitrator of the oracle's parameter set in force).
    #[arg(long)]
    pub court: Option<Address>,
    #[command(flatten)]
    common: Common,
}

/// `veritas court rule` arguments.
#[derive(Debug, Args)]
pub struct RuleArgs {
    /// The court's dispute id.
    pub dispute: U256,
    /// The ruling (0..6 for a dispute, 0..5 for an escalation; 5, too early, defers the question).
    pub ruling: u64,
    #[command(flatten)]
    options: CourtOptions,
}

/// `veritas court execute` arguments.
#[derive(Debug, Args)]
pub struct ExecuteArgs {
    /// The court's dispute id.
    pub dispute: U256,
    #[command(flatten)]
    options: CourtOptions,
}

/// Run `veritas court <action>`.
///
/// # Errors
/// Configuration, key, RPC; the court's or the oracle's refusal.
pub async fn run(args: CourtArgs) -> anyhow::Result<Output> {
    match args.action {
        Action::Rule(args) => rule(args).await,
        Action::Execute(args) => execute(args).await,
        Action::Withdraw(options) => withdraw(options).await,
    }
}

/// The session and the court's address.
async fn open(options: &CourtOptions) -> anyhow::Result<(Session, Address)> {
    let session = Session::open(&options.common.config).await?;
    let court = match options.court {
        Some(court) => court,
        None => {
            session
                .view()
                .parameters()
                .view("parameters")
                .await?
                .arbitrator
        }
    };
    if court == Address::ZERO {
        bail!("the oracle's parameter set in force names no court: pass --court");
    }
    Ok((session, court))
}

fn court_error(op: &'static str) -> impl Fn(alloy::contract::Error) -> ChainError {
    move |e| ChainError::court(op, e)
}

fn court_view(
    session: &Session,
    court: Address,
) -> IVeritasCourt::IVeritasCourtInstance<&ChainProvider> {
    IVeritasCourt::new(court, &session.provider)
}

/// Where `dispute` stands at `court` and when its appeal period ends (0 unless appealable).
pub(super) async fn standing(
    court: &IVeritasCourt::IVeritasCourtInstance<&ChainProvider>,
    dispute: U256,
) -> Result<(IVeritasCourt::DisputeStatus, u64), ChainError> {
    let status = court
        .disputeStatus(dispute)
        .call()
        .await
        .map_err(court_error("disputeStatus"))?;
    let period = court
        .appealPeriod(dispute)
        .call()
        .await
        .map_err(court_error("appealPeriod"))?;
    Ok((status, small(period.end)))
}

async fn rule(args: RuleArgs) -> anyhow::Result<Output> {
    let (session, court_address) = open(&args.options).await?;
    let court = court_view(&session, court_address);
    let dispute = args.dispute;
    let (status, _) = standing(&court, dispute).await?;
    let judge = court
        .judgeOf(dispute)
        .call()
        .await
        .map_err(court_error("judgeOf"))?;
    // The oracle opens a dispute with 5 choices and an escalation (no disputer) with 4.
    let (question, disputer) = session
        .view()
        .caseOf(court_address, dispute)
        .view("caseOf")
        .await
        .map(|c| (c.id, c.disputer))?;
    let choices = if disputer == Address::ZERO { 4 } else { 5 };
    let state = RulingState {
        status,
        judge,
        choices,
    };
    roles::can_rule(dispute, session.address(), args.ruling, &state).map_err(refused)?;
    let call = court
        .giveRuling(dispute, U256::from(args.ruling))
        .into_transaction_request();
    let sent = session.send("giveRuling", call).await?;
    let given = sent.expect_event::<IVeritasCourt::RulingGiven>()?;
    let (_, end) = standing(&court, dispute).await?;
    let value = json!({"dispute_id": dispute.to_string(), "question": question.to_string(),
        "court": court_address, "judge": given.judge, "round": given.round.to_string(),
        "ruling": given.ruling.to_string(), "appeal_ends": end});
    Ok(Output::lines(
        with_tx(value, &sent),
        &[
            format!(
                "ruled {} on dispute {dispute} (question {question}), round {}",
                given.ruling, given.round
            ),
            format!(
                "appeal   until {}, then `veritas court execute {dispute}`",
                utc(end)
            ),
            sent.line(),
        ],
    ))
}

async fn execute(args: ExecuteArgs) -> anyhow::Result<Output> {
    let (session, court_address) = open(&args.options).await?;
    let court = court_view(&session, court_address);
    let dispute = args.dispute;
    let (status, end) = standing(&court, dispute).await?;
    let now = session.now().await?;
    roles::can_execute(dispute, status, end, now).map_err(refused)?;
    let call = IVeritasCourt::new(court_address, &session.sender)
        .executeRuling(dispute)
        .into_transaction_request();
    let sent = session.send("executeRuling", call).await?;
    let (outcome, lines) = match sent.event::<IVeritasOracle::VerdictArbitrated>() {
        Some(a) => (
            json!({"question": a.id.to_string(), "status": "Arbitrated",
                   "ruling": a.ruling.to_string(), "disputer_won": a.disputerWon,
                   "triple": [a.pYes.to_string(), a.pNo.to_string(), a.pNull.to_string()]}),
            format!(
                "question {} arbitrated: ruling {}, disputer {}",
                a.id,
                a.ruling,
                if a.disputerWon { "won" } else { "lost" }
            ),
        ),
        None => (
            json!({"status": "executed"}),
            format!("ruling of dispute {dispute} executed"),
        ),
    };
    let callback = sent
        .event::<IVeritasOracle::CallbackDelivered>()
        .map(|c| format!("delivered {:?} to {}", c.status, c.consumer))
        .or_else(|| {
            sent.event::<IVeritasOracle::CallbackFailed>()
                .map(|c| format!("FAILED at {} (retry: `veritas callback retry`)", c.consumer))
        });
    let mut value = with_tx(outcome, &sent);
    value["dispute_id"] = json!(dispute.to_string());
    value["callback"] = json!(callback);
    let mut human = vec![lines];
    if let Some(c) = callback {
        human.push(format!("callback {c}"));
    }
    human.push(sent.line());
    Ok(Output::lines(value, &human))
}

async fn withdraw(options: CourtOptions) -> anyhow::Result<Output> {
    let (session, court_address) = open(&options).await?;
    let court = court_view(&session, court_address);
    let fees = court
        .fees(session.address())
        .call()
        .await
        .map_err(court_error("fees"))?;
    if fees.is_zero() {
        bail!(
            "nothing to withdraw: {} has no fees at court {court_address} (no transaction sent)",
            session.address()
        );
    }
    let call = IVeritasCourt::new(court_address, &session.sender)
        .withdraw()
        .into_transaction_request();
    let sent = session.send("withdraw", call).await?;
    let wallet = session.wallet().await?;
    let value = json!({"judge": session.address(), "court": court_address,
        "withdrawn": fees.to_string(), "wallet": wallet.to_string()});
    Ok(Output::lines(
        with_tx(value, &sent),
        &[
            format!("withdrew {}", wei(fees)),
            sent.line(),
            format!("wallet   {}", wei(wallet)),
        ],
    ))
}
