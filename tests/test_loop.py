"""The run loop (``launchx.run.loop``) over fake ports: scripted attempts, checkpoints in
memory, a clock that never waits. What the loop owns: the order of things, what each
attempt is given, what it says, when it stops. (The rules themselves: test_decide.py.)"""

from __future__ import annotations

import dataclasses
import json
import signal
from pathlib import Path

from fakes import AgreeingPeers, FakeClock, FakeScheduler, MemoryHistory, Step, fake_world, spec_for

from launchx.plan import Target
from launchx.run import text
from launchx.run.decide import AttemptRecord
from launchx.run.history import JobHistory, history_file
from launchx.run.loop import run_loop

GLOO_TIMEOUT = (
    "[r1]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] "
    "Timed out waiting 3000ms for recv operation to complete"
)
GLOO_LOST = (
    "[r1]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] "
    "Connection closed by peer [127.0.0.1]:4242"
)
SOCKET_RESET = (
    "[r1]: misc/socket.cc:46 NCCL WARN socketProgressOpt: Call to send to "
    "10.0.0.2<52905> failed : Connection reset by peer"
)
KEY_ERROR = "[r0]: KeyError: 'labels'"
BACKOFF = ("retry.backoff_min_s=5", "retry.backoff_max_s=12", "retry.jitter_s=5")
SLURM_JOB = {
    "SLURM_JOB_ID": "4242",
    "SLURM_JOB_NODELIST": "n1",
    "SLURM_NNODES": "1",
    "SLURM_NODEID": "0",
}


def test_transient_faults_back_off_resume_and_keep_one_run_id() -> None:
    # Four transient failures, each after a new checkpoint (so none is "the same failure
    # twice without progress" and none uses the budget of 1), then success.
    steps = [Step(1, GLOO_TIMEOUT, save_step=10 * (i + 1)) for i in range(4)] + [Step()]
    world = fake_world(steps, clock=FakeClock(jitters=iter([0.0, 0.2, 0.4, 0.6])))
    outcome = run_loop(spec_for("local", "retry.max_retries=1", *BACKOFF), world.world())
    assert (outcome.exit_code, outcome.reason, outcome.ended) == (0, "finished", "finished")
    assert world.clock.waited == [5.0, 11.0, 14.0, 15.0]  # min(12, 5*2^n) + 5*jitter
    for i, delay in enumerate(world.clock.waited):
        assert (
            f"collective_timeout: retrying from the checkpoint; attempt {i + 1} in {delay:.1f}s"
            in (world.console.text)
        )
    envs = [world.attempts.env(n) for n in range(5)]
    assert [e["LAUNCHX_ATTEMPT"] for e in envs] == ["0", "1", "2", "3", "4"]
    assert "LAUNCHX_RESUME_FROM" not in envs[0]
    assert envs[4]["LAUNCHX_RESUME_FROM"] == "/ck/step_00000040.pt"
    assert {e["LAUNCHX_RUN_ID"] for e in envs} == {"lx-test"}
    offer = "launchx: offering /ck/step_00000040.pt (step 40) to the script (LAUNCHX_RESUME_FROM)"
    assert offer in world.console.text


def test_each_attempt_gets_a_freshly_drawn_port_on_one_node() -> None:
    world = fake_world([Step(1, GLOO_TIMEOUT, save_step=10), Step()])
    run_loop(spec_for("local", *BACKOFF), world.world())
    assert [p.master_port for p in world.attempts.plans] == [31337, 31337]
    assert all("--master-port" in p.argv for p in world.attempts.plans)


def test_a_fixed_port_is_never_redrawn() -> None:
    world = fake_world([Step()])
    run_loop(spec_for("local", flags={"master_port": "23456"}), world.world())
    assert world.attempts.plans[0].master_port == 23456


def test_same_transient_failure_twice_without_progress_stops_after_two() -> None:
    world = fake_world([Step(1, GLOO_TIMEOUT, save_step=10)] + [Step(1, GLOO_TIMEOUT)] * 4)
    outcome = run_loop(spec_for("local", *BACKOFF), world.world())
    assert outcome.exit_code == 1 and len(world.attempts.plans) == 2
    assert len(world.clock.waited) == 1
    assert "same collective_timeout failure twice in a row" in outcome.reason


def test_a_timeout_without_a_checkpoint_is_not_retried_and_says_why() -> None:
    """From the log alone a timeout may repeat as well as not: without a checkpoint a
    retry would start from step 0 again, so the run stops and names both ways on."""
    world = fake_world([Step(1, GLOO_TIMEOUT), Step()])
    outcome = run_loop(spec_for("local", *BACKOFF), world.world())
    assert outcome.exit_code == 1 and len(world.attempts.plans) == 1
    assert "launchx: failure: collective_timeout on rank 1 (not retried)" in world.console.text
    assert outcome.reason.startswith(
        "collective_timeout is retried only from a checkpoint, and the run has no --checkpoint-dir"
    )
    assert "add collective_timeout to the profile's retry.on" in outcome.reason


# Budget tests: the profile names both failures, so each is retried without a checkpoint.
ON_BOTH = "retry.on=collective_timeout,socket_error"


def test_budget_spent_on_different_failures_without_progress() -> None:
    world = fake_world([Step(1, GLOO_TIMEOUT), Step(1, SOCKET_RESET), Step()])
    spec = spec_for("local", "retry.max_retries=1", ON_BOTH, *BACKOFF)
    outcome = run_loop(spec, world.world())
    assert outcome.exit_code == 1 and len(world.attempts.plans) == 2
    assert outcome.reason == "retry budget spent: 1 retry without progress (max_retries=1)"


def test_not_transient_failure_is_not_retried_and_is_explained() -> None:
    world = fake_world([Step(1, KEY_ERROR)] * 2)
    outcome = run_loop(spec_for("local", *BACKOFF), world.world())
    assert outcome.exit_code == 1 and len(world.attempts.plans) == 1
    assert world.clock.waited == []
    said = world.console.text
    assert "launchx: failure: user_code_error on rank 0 (not retried)" in said
    assert outcome.reason.startswith("user_code_error is not transient")
    assert outcome.ended == "failed"
    summary = text.summary(outcome.records, outcome.reason)
    assert "launchx: summary" in summary and summary.endswith(f"launchx: {outcome.reason}\n")


def test_a_stop_signal_during_an_attempt_is_never_retried() -> None:
    steps = [Step(143, GLOO_TIMEOUT, stop_signal=signal.SIGTERM), Step()]
    world = fake_world(steps)
    outcome = run_loop(spec_for("local", "retry.on=interrupted", *BACKOFF), world.world())
    assert outcome.exit_code == 143 and len(world.attempts.plans) == 1
    assert world.clock.waited == [] and outcome.reason == "interrupted"
    assert outcome.ended == "interrupted"


def test_a_stop_signal_during_the_backoff_starts_no_other_attempt() -> None:
    world = fake_world(
        [Step(1, GLOO_TIMEOUT, save_step=10), Step()],
        clock=FakeClock(stop_on_wait=signal.SIGTERM),
    )
    outcome = run_loop(spec_for("local", *BACKOFF), world.world())
    assert outcome.exit_code == 143 and len(world.attempts.plans) == 1
    assert outcome.reason == "interrupted"


def test_a_clean_run_ends_with_one_line() -> None:
    world = fake_world([Step()])
    outcome = run_loop(spec_for("local"), world.world())
    assert outcome.exit_code == 0
    assert text.summary(outcome.records, outcome.reason, 12.34) == (
        "launchx: finished in 12.3 s (1 attempt)\n"
    )
    # a requeued SLURM job's launchx ran attempt 1 only: the run made two
    requeued = [dataclasses.replace(outcome.records[0], attempt=1)]
    assert text.summary(requeued, outcome.reason, 24.0) == (
        "launchx: finished in 24.0 s (2 attempts, 1 before a requeue)\n"
    )


def test_a_run_that_needed_retries_shows_each_attempt_then_one_line() -> None:
    world = fake_world([Step(1, GLOO_TIMEOUT, save_step=10), Step()])
    outcome = run_loop(spec_for("local", *BACKOFF), world.world())
    summary = text.summary(outcome.records, outcome.reason, 60.0).splitlines()
    assert summary[1:3] == [
        "launchx: summary",
        "  attempt   duration  outcome     category                offered",
    ]
    assert summary[-1] == "launchx: finished in 60.0 s (2 attempts)"
    assert summary[-2].split()[-1] == "/ck/step_00000010.pt"


def test_the_nodes_agreement_is_what_the_loop_decides_on() -> None:
    """Node 0 saw only a closed connection (transient); node 1's bug is adopted: stop."""
    bug = AttemptRecord(0, 1, 1.0, "user_code_error", False, ("user_code_error", 3, "k"))
    world = fake_world([Step(1, GLOO_LOST), Step()], peers=AgreeingPeers(answer=bug))
    outcome = run_loop(spec_for("local", *BACKOFF), world.world())
    assert outcome.exit_code == 1 and len(world.attempts.plans) == 1
    assert world.peers.asked[0].category == "gloo_error"
    assert outcome.records[0].category == "user_code_error"


# --------------------------------------------------------------------------- SLURM


def test_the_warning_requeues_the_job_even_after_a_clean_exit() -> None:
    """A script that checkpoints on the warning and exits 0 has not finished training."""
    world = fake_world([Step(0, "[toy] preempted at step 40", warned=True)])
    spec = spec_for("slurm", "slurm.requeue=true", environ=SLURM_JOB)
    outcome = run_loop(spec, world.world())
    assert outcome.exit_code == 0 and world.scheduler.requeued == ["4242"]
    assert "launchx: requeued SLURM job 4242" in world.console.text
    assert outcome.reason == "requeued by SLURM after the time-limit warning"
    assert outcome.ended == "requeued"  # exit 0, and no finish: the job comes back


def test_a_failed_requeue_stops_with_the_attempts_code() -> None:
    world = fake_world(
        [Step(143, warned=True)], scheduler=FakeScheduler(fail_with="Requested operation")
    )
    spec = spec_for("slurm", "slurm.requeue=true", environ=SLURM_JOB)
    outcome = run_loop(spec, world.world())
    assert (outcome.exit_code, outcome.reason, outcome.ended) == (
        143,
        "stopped after the scheduler's warning signal",
        "preempted",
    )
    assert "could not requeue the SLURM job: Requested operation" in world.console.text


def test_the_warning_without_requeue_stops_and_says_why() -> None:
    world = fake_world([Step(143, warned=True)])
    spec = spec_for("slurm", "slurm.requeue=false", environ=SLURM_JOB)
    outcome = run_loop(spec, world.world())
    assert outcome.exit_code == 143 and world.scheduler.requeued == []
    assert "stopped after the scheduler's warning signal; the ranks were asked" in (
        world.console.text
    )


def test_budget_and_numbering_continue_across_requeues() -> None:
    """The job is requeued with a budget of 3: the 2 failures of the first allocation
    count, so 2 more attempts (not 4) are made, numbered 2 and 3."""
    first = fake_world([Step(1, GLOO_TIMEOUT), Step(1, SOCKET_RESET)])
    spec = spec_for("slurm", "retry.max_retries=1", ON_BOTH, *BACKOFF, environ=SLURM_JOB)
    assert run_loop(spec, first.world()).exit_code == 1
    assert [p.attempt for p in first.attempts.plans] == [0, 1]

    steps = [Step(1, GLOO_TIMEOUT), Step(1, SOCKET_RESET)] * 2
    second = fake_world(steps, history=MemoryHistory(first.history.kept))
    requeued = {**SLURM_JOB, "SLURM_RESTART_COUNT": "1"}
    spec = spec_for("slurm", "retry.max_retries=3", ON_BOTH, *BACKOFF, environ=requeued)
    assert run_loop(spec, second.world()).exit_code == 1
    assert [p.attempt for p in second.attempts.plans] == [2, 3]
    assert [r.attempt for r in second.history.kept] == [0, 1, 2, 3]


def test_a_requeued_job_without_history_starts_at_the_restart_count() -> None:
    world = fake_world([Step()])
    requeued = {**SLURM_JOB, "SLURM_RESTART_COUNT": "3"}
    run_loop(spec_for("slurm", environ=requeued), world.world())
    assert world.attempts.plans[0].attempt == 3


def test_the_launchx_in_an_srun_step_continues_the_outer_ones_count() -> None:
    step_env = {**SLURM_JOB, "SLURM_STEP_ID": "0", "LAUNCHX_STEP": "1", "LAUNCHX_ATTEMPT": "2"}
    world = fake_world([Step(1, KEY_ERROR)])
    spec = spec_for("slurm", environ=step_env)
    run_loop(spec, world.world())
    assert spec.decisions.inner_step and world.attempts.plans[0].attempt == 2


# --------------------------------------------------------------------------- history file


def test_history_file_is_kept_per_job_and_per_command(tmp_path: Path) -> None:
    env = {**SLURM_JOB, "SLURM_SUBMIT_DIR": str(tmp_path)}
    spec = spec_for("slurm", environ=env)
    pretrain = history_file(spec.res, Target("pretrain.py"))
    finetune = history_file(spec.res, Target("finetune.py"))
    assert pretrain is not None and finetune is not None and pretrain != finetune
    assert pretrain.parent == tmp_path / ".launchx" / "4242"
    assert history_file(spec_for("local").res, Target("pretrain.py")) is None


def test_job_history_round_trips_and_forgives_a_broken_file(tmp_path: Path) -> None:
    store = JobHistory(tmp_path / "h" / "attempts.json")
    assert store.load() == []
    records = [AttemptRecord(0, 1, 2.0, "ib_error", True, ("ib_error", 1, "x"), warned=True)]
    store.save(records)
    assert store.load() == records
    (tmp_path / "h" / "attempts.json").write_text(json.dumps([{"attempt": "?"}]) + "{")
    assert store.load() == []


def test_a_retry_that_started_over_is_named() -> None:
    """Offered step 10, its output shows step 0: the script ignored LAUNCHX_RESUME_FROM."""
    steps = [
        Step(1, GLOO_TIMEOUT, save_step=10, started_at=(1, "  3%|| 1/30")),
        Step(0, started_at=(1, "  3%|| 1/30")),
    ]
    world = fake_world(steps)
    run_loop(spec_for("local", *BACKOFF), world.world())
    warnings = [w for w in world.console.lines if "did not resume from" in w]
    assert len(warnings) == 1 and "(step 10)" in warnings[0] and "step 1 " in warnings[0]


def test_a_retry_that_resumed_is_not_warned_about() -> None:
    steps = [Step(1, GLOO_TIMEOUT, save_step=10), Step(0, started_at=(11, "step 11 loss 2"))]
    world = fake_world(steps)
    run_loop(spec_for("local", *BACKOFF), world.world())
    assert "did not resume" not in world.console.text


def test_a_retry_that_wrote_an_earlier_checkpoint_again_started_over() -> None:
    """Its bar first showed step 12 (a fast run draws a frame every few steps), but it
    wrote step 5's checkpoint again: it trained from the start."""
    steps = [
        Step(1, GLOO_TIMEOUT, saves=(5, 10)),
        Step(0, saves=(5, 10, 15), started_at=(12, " 40%|| 12/30")),
    ]
    world = fake_world(steps)
    run_loop(spec_for("local", *BACKOFF), world.world())
    warnings = [w for w in world.console.lines if "did not resume from" in w]
    assert len(warnings) == 1, world.console.text
    assert "it wrote /ck/step_00000005.pt (step 5) again" in warnings[0]


def test_a_retry_that_resumed_and_saved_later_steps_is_not_warned_about() -> None:
    steps = [Step(1, GLOO_TIMEOUT, saves=(5, 10)), Step(0, saves=(15, 20))]
    world = fake_world(steps)
    run_loop(spec_for("local", *BACKOFF), world.world())
    assert "did not resume" not in world.console.text


def test_a_frameworks_checkpoint_comes_with_the_way_it_resumes(tmp_path: Path) -> None:
    from launchx.checkpoints import Checkpoint

    hf = Checkpoint(str(tmp_path / "checkpoint-10"), 10, "hf")
    said = text.offering(hf, None)
    assert "offering" in said and "--resume_from_checkpoint" in said
    assert "LAUNCHX_RESUME_FROM" in said
    given = text.offering(hf, "--resume_from_checkpoint {path}")
    assert given.count("\n") == 1 and "and --resume_from_checkpoint <it>" in given
    passed = text.offering(hf, "--resume_from_checkpoint {path}", ("checkpoint-15",))
    assert "launchx: passed over checkpoint-15: a later save, not complete" in passed
    many = text.offering(hf, None, tuple(f"checkpoint-{s}" for s in (15, 20, 25, 30, 35)))
    assert "passed over checkpoint-15, checkpoint-20, checkpoint-25 and 2 more" in many


def test_the_failure_header_says_how_launchx_goes_on() -> None:
    """An aborted attempt (another node failed first) is retried or not as the failed node's
    cause says: its header must not say "not retried" just before the nodes retry."""
    from launchx import failures
    from launchx.failures import Report

    def head(category: str, retryable: bool, from_checkpoint: bool = False) -> str:
        diag = failures.exit_diagnosis(category, None, rank=1, exit_code=1)
        report = Report(primary=diag, findings=(diag,))
        return text.failure(report, retryable, from_checkpoint).splitlines()[0]

    assert head("aborted", False).endswith("(another node failed first)")
    assert head("hang", True) == "launchx: failure: hang on rank 1 (transient)"
    assert head("hang", True, True).endswith("(retryable from a checkpoint)")
    assert head("hang", False, True).endswith("(not retried)")  # no checkpoint to retry from
    assert head("launcher_died", False).endswith("(not retried)")
