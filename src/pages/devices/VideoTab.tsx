import { Box, ToggleButton, ToggleButtonGroup, Tooltip } from '@mui/material';
import { EmptyDevices } from './DeviceTable';

/** SPEC.md: the video stream list filters by status; the filter waits for the video feature with the list. */
const VIDEO_STATUSES = ['全部', '已激活', '已停止'];

/** The 视频流列表 tab: empty until video devices (rtsp / gb28181) arrive with their own feature. */
export function VideoTab() {
    return (
        <Box>
            <Tooltip title="视频功能上线后可用">
                <span>
                    <ToggleButtonGroup size="small" exclusive value="全部" disabled aria-label="视频流状态">
                        {VIDEO_STATUSES.map((s) => (
                            <ToggleButton key={s} value={s}>
                                {s}
                            </ToggleButton>
                        ))}
                    </ToggleButtonGroup>
                </span>
            </Tooltip>
            <EmptyDevices
                text="暂无视频设备"
                hint="视频设备（rtsp / gb28181 摄像头）将随视频功能一同上线，届时可在此查看视频流并推流或停止推流。"
            />
        </Box>
    );
}
