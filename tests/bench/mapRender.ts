import type { BenchGroup } from './run';

/** the device map's first render with 100,000 located devices in Chromium (issue 5). Placeholder until its helper writes it. */
const group: BenchGroup = {
    name: 'mapRender',
    async run() {
        throw new Error('not written yet');
    },
};

export default group;
