import { createInterface } from 'node:readline';

/**
 * How the soak's child processes (fleet.ts, consumers.ts) are driven: a stdin line `name json` runs
 * commands[name](parsed json) and what it returns (or resolves to) is printed as one JSON line; a failing command
 * prints `{ error }`; `quit` ends the process. Prints `{ ready }` first. (tests/bench/harness.ts's loop takes a text
 * argument and loads the platform's seed with it; these processes hold no platform code but the packets they send.)
 */
export function serveCommands(commands: Record<string, (arg: never) => unknown>): void {
    createInterface({ input: process.stdin }).on('line', (line) => {
        const space = line.indexOf(' ');
        const name = space < 0 ? line.trim() : line.slice(0, space);
        if (name === 'quit') process.exit(0);
        void Promise.resolve()
            .then(() => {
                const command = commands[name];
                if (!command) throw new Error(`unknown command ${name}`);
                return command((space < 0 ? undefined : JSON.parse(line.slice(space + 1))) as never);
            })
            .then(
                (value) => process.stdout.write(JSON.stringify(value ?? {}) + '\n'),
                (err: Error) => process.stdout.write(JSON.stringify({ error: err.message }) + '\n'),
            );
    });
    process.stdout.write(JSON.stringify({ ready: true }) + '\n');
}
