import { Box, Typography } from '@mui/material';
import SubscriptionsOutlinedIcon from '@mui/icons-material/SubscriptionsOutlined';
import type { DeviceTabProps } from './types';

/**
 * 数据订阅: which server-side subscriptions deliver this device's messages. None can yet: server-side
 * subscriptions (AMQP) arrive with a later version, and this tab fills in then.
 */
export function DataSubscriptionTab({ device }: DeviceTabProps) {
    return (
        <Box sx={{ textAlign: 'center', py: 6, color: 'text.secondary' }} data-testid="data-subscription-empty">
            <SubscriptionsOutlinedIcon sx={{ fontSize: 56, opacity: 0.4 }} />
            <Typography variant="body1" sx={{ mt: 1 }}>
                暂无数据订阅
            </Typography>
            <Typography variant="body2" sx={{ mt: 0.5, maxWidth: 560, mx: 'auto' }}>
                目前还没有服务端订阅投递设备 {device.deviceName}{' '}
                的消息。服务端订阅（AMQP）将在后续版本提供，届时这里会列出订阅了该设备所属产品消息的订阅及其消费组。
            </Typography>
        </Box>
    );
}
