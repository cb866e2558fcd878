import type { BenchGroup } from './run';

/** dashboard API latency with 1,000,000 devices (issue 5). Placeholder until its helper writes it. */
const group: BenchGroup = {
    name: 'dashboard',
    async run() {
        throw new Error('not written yet');
    },
};

export default group;
