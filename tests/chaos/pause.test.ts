import { NODE_TIMEOUT_S, scenario, sleep } from './harness';

/**
 * The third process (it runs the simulation) stopped with SIGSTOP for 2 x NODE_TIMEOUT, then resumed with SIGCONT:
 * the others have taken its devices and its simulation meanwhile, and the resumed process must not serve them too.
 */
await scenario('pause', 'one process paused (SIGSTOP) for 2 x NODE_TIMEOUT, then resumed', async (p) => {
    const node = p.nodes[2];
    p.paused.add(2);
    node.child.kill('SIGSTOP');
    await sleep(2 * NODE_TIMEOUT_S * 1000);
    node.child.kill('SIGCONT');
    p.paused.delete(2);
    return Date.now();
});
