// merchant-kit/checks: the homologation checks, their runner and the report writers.

// The checks, in the order they run (DESIGN: Homologation; all mandatory but import_recovery).
export { connection } from './connection.js';
export { catalog } from './catalog.js';
export { orderReception } from './order-reception.js';
export { signatureRejection } from './signature-rejection.js';
export { importCheck } from './import.js';
export { importRecovery } from './import-recovery.js';
export { statuses } from './statuses.js';
export { retries } from './retries.js';
export { CHECKS, selectChecks } from './registry.js';

// Running and grading.
export { runChecks, type RunOptions } from './runner.js';
export { gradeObservation } from './grade.js';
export type { Check } from './check.js';
export type { RunContext, SharedState } from './context.js';
export type { Observation, RecordedCall, ProbeRecord, SessionView, OpenedTask, TaskAction } from '../src/contract/observation.js';
export { gradeTasks, instructionOf, type Task, type TaskStatus } from './tasks.js';
export { ReferenceReceiver, type ReceivedEvent, type ReceiverOptions } from './internal/receiver.js';

// Reports.
export { buildReport, summarize, exitCodeOf, REPORT_SCHEMA_VERSION, type HomologationReport, type ReportMode } from './report.js';
export { writeReports, REPORT_FILES, REPORT_FORMATS, type ReportFormat } from './writers/index.js';
export { jsonReport, sha256Hex } from './writers/json.js';
export { junitReport } from './writers/junit.js';
export { htmlReport } from './writers/html.js';
export { markdownReport } from './writers/markdown.js';
export { terminalReport, checkLine } from './writers/terminal.js';
export { CHECK_IDS, OPTIONAL_CHECK_IDS, ALL_CHECK_IDS, type CheckId, type CheckMeta, type CheckResult, type CheckOutcome, type CheckStatus, type Evidence } from './types.js';
