import { Alert, Box, Chip, CircularProgress, Stack, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useDataProvider, useRefresh } from 'react-admin';
import { readAuthorization } from '../../../dataProvider';
import type { PlatformDataProvider } from '../../engine/choices';
import type { WidgetProps } from '../registry';
import { mediaSourceClass, playLowLatency } from './lowLatency';

interface StreamStatus {
    pushing: number;
    state: 'starting' | 'playing' | 'retrying' | 'stopped';
    error: string | null;
    attempts: number;
    retryAt: number | null;
    mode: 'copy' | 'transcode' | null;
    codec: string | null;
    viewers: number;
}

interface LivePlayerProps extends WidgetProps {
    /** The definition's resource and its calls: streamStatus (id) and the stream path. */
    resource: string;
    deviceId: number | string;
}

const STATE_TEXT: Record<StreamStatus['state'], string> = {
    starting: '正在连接视频源…',
    playing: '直播中',
    retrying: '视频源中断，正在重连',
    stopped: '未推流',
};

const apiPrefix = () => ((import.meta.env?.VITE_API_PREFIX as string | undefined) ?? '').replace(/\/$/, '');

function streamUrl(deviceId: number | string): string {
    return `${apiPrefix()}/api/video-device/stream?id=${encodeURIComponent(String(deviceId))}&file=index.m3u8`;
}

function liveUrl(deviceId: number | string): string {
    return `${apiPrefix()}/api/video-device/live?id=${encodeURIComponent(String(deviceId))}`;
}

function authHeaders(): Record<string, string> {
    const token = readAuthorization();
    return token ? { Authorization: token } : {};
}

/** How the picture arrives: fragmented MP4 into Media Source Extensions, or HLS (hls.js, or the browser's own). */
type PlayPath = 'live' | 'hls';

/**
 * The live picture of a pushed camera. Where the browser has Media Source Extensions, the low-latency path
 * (./lowLatency.ts) opens as soon as the push starts: the server answers with the stream's init segment and the
 * fragments since its last keyframe, so the first frame shows about a second after push. Without MSE, or when that
 * path cannot play (codec, refused), HLS: hls.js (loaded only then, in its own chunk) or the browser's native HLS,
 * once the playlist exists. The relay's state is polled (every 0.5 s while starting, else 2 s) and said in words,
 * with its last error.
 */
export default function LivePlayer({ resource, deviceId }: LivePlayerProps) {
    const dataProvider = useDataProvider<PlatformDataProvider>();
    const status = useQuery({
        queryKey: [resource, 'streamStatus', deviceId],
        queryFn: async () =>
            (await dataProvider.invoke(resource, 'streamStatus', { id: deviceId })).data as StreamStatus,
        refetchInterval: (query) => (query.state.data?.state === 'starting' ? 500 : 2000),
        retry: false,
    });
    const playing = status.data?.state === 'playing';
    // The camera's own status (online while its stream plays) shows elsewhere on the page: refresh it when the
    // stream starts playing or stops.
    const refresh = useRefresh();
    const wasPlaying = useRef<boolean | undefined>(undefined);
    useEffect(() => {
        if (status.data === undefined) return;
        if (wasPlaying.current !== undefined && wasPlaying.current !== playing) refresh();
        wasPlaying.current = playing;
    }, [playing, status.data, refresh]);
    const videoRef = useRef<HTMLVideoElement>(null);
    const [playError, setPlayError] = useState<string>();
    const [path, setPath] = useState<PlayPath>(() => (mediaSourceClass() ? 'live' : 'hls'));
    /** Bumped to open the low-latency stream again after it ended (the relay restarted). */
    const [attempt, setAttempt] = useState(0);
    /** A frame has been shown: the picture is visible even before the polled state says playing. */
    const [shown, setShown] = useState(false);
    const active = status.data?.state === 'starting' || playing;

    useEffect(() => {
        if (!active) setShown(false);
    }, [active]);

    useEffect(() => {
        const video = videoRef.current;
        if (path !== 'live' || !active || !video) return;
        setPlayError(undefined);
        let retry: ReturnType<typeof setTimeout> | undefined;
        const playback = playLowLatency(video, liveUrl(deviceId), {
            headers: authHeaders(),
            onUnsupported: () => setPath('hls'),
            onEnded: () => {
                retry = setTimeout(() => setAttempt((n) => n + 1), 1000);
            },
        });
        return () => {
            clearTimeout(retry);
            playback.stop();
        };
    }, [path, active, deviceId, attempt]);

    useEffect(() => {
        const video = videoRef.current;
        // The relay says playing once the HLS playlist exists.
        if (path !== 'hls' || !playing || !video) return;
        setPlayError(undefined);
        let destroyed = false;
        let hls: { destroy(): void } | undefined;
        const url = streamUrl(deviceId);
        void import('hls.js').then(({ default: Hls }) => {
            if (destroyed) return;
            if (Hls.isSupported()) {
                const player = new Hls({
                    liveSyncDurationCount: 2,
                    manifestLoadingMaxRetry: 6,
                    xhrSetup: (xhr) => {
                        for (const [name, value] of Object.entries(authHeaders())) xhr.setRequestHeader(name, value);
                    },
                });
                hls = player;
                player.on(Hls.Events.ERROR, (_event, data) => {
                    if (data.fatal) setPlayError(`播放失败：${data.details}`);
                });
                player.loadSource(url);
                player.attachMedia(video);
            } else if (video.canPlayType('application/vnd.apple.mpegurl')) {
                video.src = url;
            } else {
                setPlayError('当前浏览器不支持 HLS 播放');
            }
            void video.play().catch(() => undefined);
        });
        return () => {
            destroyed = true;
            hls?.destroy();
            video.removeAttribute('src');
        };
    }, [path, playing, deviceId]);

    if (status.isPending) return <CircularProgress size={24} aria-label="加载中" />;
    if (status.error) return <Alert severity="error">视频状态查询失败：{(status.error as Error).message}</Alert>;
    const s = status.data!;
    // Frames shown while the relay still says starting (the low-latency path opens before the HLS playlist exists).
    const live = s.state === 'playing' || (s.state === 'starting' && shown);
    const retryIn = s.retryAt ? Math.max(0, Math.round((s.retryAt - Date.now()) / 1000)) : null;
    return (
        <Stack spacing={1}>
            <Stack direction="row" spacing={1} alignItems="center">
                <Chip
                    size="small"
                    label={STATE_TEXT[live ? 'playing' : s.state]}
                    color={live ? 'success' : s.state === 'retrying' ? 'warning' : 'default'}
                />
                {s.mode && (
                    <Typography variant="body2" color="text.secondary">
                        {s.mode === 'copy' ? 'H.264 直通' : `转码（源：${s.codec ?? '未知'}）`}
                    </Typography>
                )}
                {s.state === 'playing' && (
                    <Typography variant="body2" color="text.secondary">
                        观看 {s.viewers} 人
                    </Typography>
                )}
                {live && (
                    <Typography variant="body2" color="text.secondary" data-testid="play-path">
                        {path === 'live' ? '低延迟（MSE）' : 'HLS'}
                    </Typography>
                )}
            </Stack>
            {s.state === 'retrying' && (
                <Alert severity="warning">
                    {s.error ?? '视频源中断'}（第 {s.attempts} 次重试{retryIn !== null ? `，${retryIn} 秒后` : ''}）
                </Alert>
            )}
            {playError && <Alert severity="error">{playError}</Alert>}
            {s.state === 'stopped' ? (
                <Typography color="text.secondary">设备未推流，点击“推流”后在此观看实时画面</Typography>
            ) : (
                <Box sx={{ bgcolor: 'common.black', maxWidth: 640, aspectRatio: '16 / 9', position: 'relative' }}>
                    <video
                        ref={videoRef}
                        data-testid="live-video"
                        data-path={path}
                        onLoadedData={() => setShown(true)}
                        muted
                        autoPlay
                        playsInline
                        controls
                        style={{ width: '100%', height: '100%', display: playing || shown ? 'block' : 'none' }}
                    />
                    {!playing && !shown && (
                        <Stack alignItems="center" justifyContent="center" sx={{ position: 'absolute', inset: 0 }}>
                            <CircularProgress size={32} sx={{ color: 'common.white' }} aria-label="连接中" />
                        </Stack>
                    )}
                </Box>
            )}
        </Stack>
    );
}
