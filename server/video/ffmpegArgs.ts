import path from 'node:path';

/** The command lines of the relay's ffmpeg and ffprobe (server/video/stream.ts runs them). */

/** A source `loop:{path}`: a local clip the relay plays in a loop, in real time. */
export const LOOP_PREFIX = 'loop:';

/**
 * The fragmented MP4 beside the HLS: a fragment per frame, written as the frame arrives, so a viewer's first frame
 * waits for neither a whole GOP nor a whole segment (a fragment at least every 100 ms took 0.1-0.2 s more at 15 fps;
 * a frame's moof is about 100 bytes).
 */
const FMP4_OPTIONS = 'f=mp4:movflags=frag_every_frame+empty_moov+default_base_moof';

/** A value inside the tee muxer's output list: its separators escaped. */
export const teeEscape = (value: string) => value.replace(/[\\:|[\]]/g, '\\$&');

/** ffmpeg's stderr names the URL with its password: never show that. */
export const hidePassword = (text: string) => text.replace(/(rtsp:\/\/[^:@/\s]+:)[^@\s]*@/g, '$1***@');

/** The RTSP input options: over TCP, giving up on a silent camera after 5 s. */
export const RTSP_INPUT = ['-rtsp_transport', 'tcp', '-timeout', '5000000'];

/**
 * How much of the source ffmpeg reads before it starts writing. An RTSP camera's SDP names the codec and (in
 * sprop-parameter-sets) its size: ffmpeg then needs no media analysis, and its first bytes come 0.14 s after the start
 * instead of 1.3 s. A program stream (a pipe, a local clip) is found only by reading it, and a camera whose SDP lacks
 * the parameters fails the quick start: those get a second of analysis (the second attempt, after such a failure).
 */
export function analysis(s: { url: string; pipe: unknown; fullAnalysis: boolean }): string[] {
    const quick = !s.pipe && !s.url.startsWith(LOOP_PREFIX) && !s.fullAnalysis;
    return quick
        ? ['-analyzeduration', '0', '-probesize', '32']
        : ['-analyzeduration', '1000000', '-probesize', '1000000'];
}

/** ffprobe of the source's first video stream's codec name. */
export function probeArgs(s: { url: string; pipe: unknown; fullAnalysis: boolean }): string[] {
    return [
        '-v',
        'error',
        ...RTSP_INPUT,
        // The codec is in the SDP: no analysis of the media names it (0.27 s here, 1.5 s with a second of analysis).
        // After a failed start, a second of analysis, as for ffmpeg.
        ...analysis(s),
        '-select_streams',
        'v:0',
        '-show_entries',
        'stream=codec_name',
        '-of',
        'csv=p=0',
        s.url,
    ];
}

/**
 * ffmpeg from `input` to HLS in `dir` (a rolling index.m3u8 and 1-second MPEG-TS segments) and, through the tee muxer,
 * to fragmented MP4 on its stdout; the video copied, or transcoded to H.264 (`transcode`), audio left out.
 */
export function hlsArgs(
    s: { url: string; pipe: unknown; fullAnalysis: boolean; dir: string },
    inputArgs: string[],
    input: string,
    transcode: boolean,
): string[] {
    // Through the tee muxer the encoder must put the H.264 parameters in the header (the MP4's avcC).
    const video = transcode
        ? [
              ...['-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'zerolatency', '-g', '25'],
              ...['-pix_fmt', 'yuv420p', '-flags', '+global_header'],
          ]
        : ['-c:v', 'copy'];
    const hls = [
        'f=hls:hls_time=1:hls_list_size=6:hls_flags=delete_segments+omit_endlist+temp_file',
        `hls_segment_filename=${teeEscape(path.join(s.dir, 'seg_%05d.ts'))}`,
    ].join(':');
    return [
        '-hide_banner',
        '-nostdin',
        '-loglevel',
        'warning',
        ...inputArgs,
        ...analysis(s),
        '-i',
        input,
        '-map',
        '0:v:0',
        '-an',
        ...video,
        '-f',
        'tee',
        `[${hls}]${teeEscape(path.join(s.dir, 'index.m3u8'))}|[${FMP4_OPTIONS}]pipe\\:1`,
    ];
}
