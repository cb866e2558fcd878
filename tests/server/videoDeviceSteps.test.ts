import { describe, expect, it } from 'vitest';
import { pushingFilter } from '../../server/routes/videoDevice';
import { playlistText } from '../../server/routes/videoStream';

/** Steps of the /api/video-device handlers (server/routes/videoDevice.ts, videoStream.ts). */

describe('video device handlers', () => {
    it('the playlist names its segments through /stream with the camera id; other lines stay', () => {
        const m3u8 = '#EXTM3U\n#EXTINF:1.0,\nseg_00012.ts\n#EXTINF:1.0,\nseg_00013.ts\n';
        expect(playlistText(m3u8, 9)).toBe(
            '#EXTM3U\n#EXTINF:1.0,\nstream?id=9&file=seg_00012.ts\n#EXTINF:1.0,\nstream?id=9&file=seg_00013.ts\n',
        );
    });

    it('the list filters on pushing 0 or 1, or not at all', () => {
        expect(pushingFilter(undefined)).toBeUndefined();
        expect(pushingFilter('')).toBeUndefined();
        expect(pushingFilter('1')).toBe(1);
        expect(() => pushingFilter('2')).toThrow('推流状态只能是0（已停止）或1（已激活）');
    });
});
