import RefreshIcon from '@mui/icons-material/Refresh';
import { Button } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { RUN_STATUS_SIZE, TELEMETRY, errorText, usePlatform, useToast, type MessageRecord } from './api';
import { EmptyState, LoadError, MessageTable, TabToolbar } from './parts';

export interface ReportedMessagesProps {
    productKey: string;
    deviceName: string;
    /** 'thing.event.property.post', or a prefix ending in '.*' ('thing.event.*', 'thing.service.*'). */
    method: string;
    /** The table's accessible name and the heading over it. */
    title: string;
    size?: number;
    /**
     * What a failed answer shows: run status says '未上报属性数据' (SPEC.md) whatever the server's reason; the other
     * lists show the server's message with a retry.
     */
    failureText?: string;
    empty?: string;
}

/**
 * The latest messages of one method a device reported (POST /api/function/ListProperty), newest first, with a
 * refresh button: run status, event manage and service call records.
 */
export function ReportedMessages(props: ReportedMessagesProps) {
    const { productKey, deviceName, method, title, size = RUN_STATUS_SIZE, failureText, empty } = props;
    const platform = usePlatform();
    const toast = useToast();
    const query = useQuery({
        queryKey: [TELEMETRY, 'listProperty', productKey, deviceName, method, size],
        queryFn: async () => {
            try {
                const { data } = await platform.invoke<MessageRecord[]>(TELEMETRY, 'listProperty', {
                    productKey,
                    deviceName,
                    size,
                    method,
                });
                return data ?? [];
            } catch (error) {
                toast(failureText ?? errorText(error), failureText ? 'warning' : 'error');
                throw error;
            }
        },
        retry: false,
        refetchOnWindowFocus: false,
    });

    const failed = query.error && !query.isFetching;
    return (
        <>
            <TabToolbar title={title}>
                <Button
                    size="small"
                    variant="outlined"
                    startIcon={<RefreshIcon />}
                    disabled={query.isFetching}
                    onClick={() => void query.refetch()}
                    aria-label={`刷新${title}`}
                >
                    {query.isFetching ? '刷新中…' : '刷新'}
                </Button>
            </TabToolbar>
            <MessageTable
                label={title}
                rows={failed ? [] : query.data}
                loading={query.isFetching}
                empty={<EmptyState text={empty ?? '暂无数据'} hint="设备上报后点击“刷新”查看最新记录" />}
                error={
                    failed ? (
                        failureText ? (
                            <EmptyState text={failureText} hint="设备上报后点击“刷新”重试" />
                        ) : (
                            <LoadError
                                title={`${title}加载失败`}
                                error={query.error}
                                onRetry={() => void query.refetch()}
                            />
                        )
                    ) : undefined
                }
            />
        </>
    );
}
