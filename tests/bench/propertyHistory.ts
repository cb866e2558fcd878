import type { BenchGroup } from './run';

/** property history query latency for one device with 1,000,000 stored records (issue 4). Placeholder until its helper writes it. */
const group: BenchGroup = {
    name: 'propertyHistory',
    async run() {
        throw new Error('not written yet');
    },
};

export default group;
