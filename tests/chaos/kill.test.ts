import { scenario } from './harness';

/**
 * The third process (it runs the simulation) killed with SIGKILL: its devices reconnect through HAProxy to the
 * others and a survivor takes its simulation. tests/server/clusterFailover.test.ts runs the same fault with 1,000
 * devices and checks the lost devices' OFFLINE and /monitor/real; this one checks the suite's invariants.
 */
await scenario('kill', 'one process killed with SIGKILL', async (p) => {
    const { child } = p.nodes[2];
    p.restarted.add(2);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    // Dead once its exit is seen: recovery counts devices on the processes still running.
    await exited;
    return Date.now();
});
