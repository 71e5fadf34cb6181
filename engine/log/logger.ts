import fs from 'node:fs';
import path from 'node:path';
import { pino, type Logger, type LevelWithSilent, type DestinationStream } from 'pino';
import { SLUICE_VERSION } from '../../conf/version.js';
import { escapeLogText } from '../../mediation/log-text.js';

export type { Logger };

export interface LogSettings {
  readonly level: LevelWithSilent;
  readonly format: 'text' | 'json';
  /** Absolute path of the log file; undefined logs to stdout only. */
  readonly file?: string;
  /** Written in every line (`thread: "io-1"`). */
  readonly thread?: string;
  /** Also to stdout (default true). */
  readonly console?: boolean;
}

/** Fields every JSON line carries: `service` and `version` say which program wrote it (log shippers group by them). */
export const LOG_SERVICE = 'sluice';
const BASE_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'thread', 'component', 'service', 'version']);
/** A field value written quoted (JSON-escaped): whitespace, or any control character. */
// eslint-disable-next-line no-control-regex
const NEEDS_QUOTES = /[\s\u0000-\u001f\u007f-\u009f]/;

/**
 * One JSON record from pino -> `2026-11-21T10:00:00.000Z INFO [io-1] transport: message key=value`. One
 * record is one line: a message or a field holding CR, LF or another control (request data in a log line)
 * is written escaped, never raw.
 */
function toText(line: string): string {
  let rec: Record<string, unknown>;
  try { rec = JSON.parse(line) as Record<string, unknown>; } catch { return line; }
  const time = String(rec['time']);
  const level = String(rec['level']).toUpperCase();
  const where = rec['thread'] ? ` [${String(rec['thread'])}]` : '';
  const comp = rec['component'] ? ` ${String(rec['component'])}:` : '';
  let extra = '';
  for (const [k, v] of Object.entries(rec)) {
    if (BASE_FIELDS.has(k)) continue;
    // JSON escapes C0 controls only; escapeLogText takes the C1 ones and the line separators.
    extra += ` ${k}=${typeof v === 'string' ? (NEEDS_QUOTES.test(v) ? escapeLogText(JSON.stringify(v)) : v) : escapeLogText(JSON.stringify(v))}`;
  }
  return `${time} ${level.padEnd(5)}${where}${comp} ${escapeLogText(String(rec['msg'] ?? ''))}${extra}\n`;
}

class TextStream implements DestinationStream {
  constructor(private readonly out: DestinationStream) {}
  write(line: string): void { this.out.write(toText(line)); }
}

/** Log text held for a file that cannot be written (a full disk) before lines are dropped. */
export const MAX_PENDING_BYTES = 16 * 1024 * 1024;

/** What stderr is told, once, when a log file cannot be written (a full disk, a file gone read-only). */
export function cannotWriteNotice(file: string, err: NodeJS.ErrnoException): string {
  return `sluice: cannot write ${file} (${err.code ?? err.message}); its lines wait in memory up to ${MAX_PENDING_BYTES >> 20} MiB, then are dropped, until it can\n`;
}

/** What stderr is told when a log file that could not be written takes lines again. */
export function writingAgainNotice(file: string): string {
  return `sluice: writing ${file} again\n`;
}

type Boom = ReturnType<typeof pino.destination>;

/**
 * An asynchronous file destination (sonic-boom) that survives a disk that cannot be written: without an
 * 'error' listener, a write failing with ENOSPC is an unhandled 'error' event, and what waits is kept without
 * a bound. Here the first failure of a burst is said once on stderr, what waits is capped (the rest is
 * dropped), and writing resumes with the next line once the disk takes it again. (The access log,
 * analytics and tracing files have their own writer: engine/operations/file-sink.ts.)
 */
export function fileDestination(file: string): Boom {
  const d = pino.destination({ dest: file, sync: false, append: true, mkdir: true, maxLength: MAX_PENDING_BYTES });
  let failing = false;
  d.on('error', (err: NodeJS.ErrnoException) => {
    if (failing) return;
    failing = true;
    process.stderr.write(cannotWriteNotice(file, err));
  });
  d.on('write', () => {
    if (!failing) return;
    failing = false;
    process.stderr.write(writingAgainNotice(file));
  });
  // pino flushes its destinations when the process is about to exit (an asynchronous flush at
  // 'beforeExit', a synchronous one at 'exit'). sonic-boom retries a synchronous write that fails with
  // anything but EAGAIN every 100 ms for ever, and a failed asynchronous flush at 'beforeExit' starts the
  // loop again: with a full log volume a stopped Sluice never exited. While the file cannot be written,
  // a flush drops nothing and waits for nothing; what waits is lost at exit, as the disk would lose it.
  const flush = d.flush.bind(d);
  const flushSync = d.flushSync.bind(d);
  d.flush = (cb?: (err?: Error) => void): void => {
    if (failing) cb?.(new Error(`cannot write ${file}`));
    else flush(cb);
  };
  d.flushSync = (): void => {
    if (!failing) flushSync();
  };
  return d;
}

/**
 * The process logger: stdout plus the home's log file, text or JSON. Writes are asynchronous (sonic-boom)
 * so that a log line never blocks an io thread on disk. A JSON line reads
 * `{"level":"info","time":"2026-11-21T10:00:00.000Z","service":"sluice","version":"0.1.0","thread":"main","msg":"..."}`:
 * the level by name and the time in ISO 8601 (UTC), as log shippers (Loki, Elasticsearch, Datadog) expect.
 */
export function createLogger(settings: LogSettings): Logger {
  // The streams take every level: the logger's level (which setLogLevel changes live) decides alone.
  const streams: { stream: DestinationStream; level: LevelWithSilent }[] = [];
  const wrap = (s: DestinationStream): DestinationStream => (settings.format === 'text' ? new TextStream(s) : s);
  if (settings.console !== false) streams.push({ stream: wrap(pino.destination({ dest: 1, sync: false })), level: 'trace' });
  if (settings.file) {
    fs.mkdirSync(path.dirname(settings.file), { recursive: true });
    streams.push({ stream: wrap(fileDestination(settings.file)), level: 'trace' });
  }
  const family = new Set<WeakRef<Logger>>();
  const root = pino(
    {
      level: settings.level,
      onChild: (child: Logger) => { family.add(new WeakRef(child)); },
      base: { service: LOG_SERVICE, version: SLUICE_VERSION, ...(settings.thread ? { thread: settings.thread } : {}) },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label: string) => ({ level: label }) },
      // Secrets never reach a log line, whatever a caller passes.
      redact: { paths: ['password', 'secret', 'token', 'authorization', '*.password', '*.secret', '*.token', '*.authorization', 'client_secret', '*.client_secret'], censor: '********' },
    },
    pino.multistream(streams),
  );
  family.add(new WeakRef(root));
  FAMILIES.set(root, family);
  return root;
}

/** Loggers made by createLogger, with every child made from them since (their levels move together). */
const FAMILIES = new WeakMap<Logger, Set<WeakRef<Logger>>>();

/**
 * Changes the level of a logger and of all its children (a SIGHUP reload of [sluice.log] level). pino
 * children copy their parent's level when made, so each is changed in turn.
 */
export function setLogLevel(log: Logger, level: string): void {
  const family = FAMILIES.get(log);
  if (!family) { log.level = level; return; }
  for (const ref of [...family]) {
    const l = ref.deref();
    if (l === undefined) family.delete(ref);
    else l.level = level;
  }
}

/** A logger that drops everything, for tests and tools that want silence. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
