import { useState } from 'react';
import {
    Alert,
    Box,
    FormControlLabel,
    LinearProgress,
    Radio,
    RadioGroup,
    Table,
    TableBody,
    TableCell,
    TableContainer,
    TableHead,
    TableRow,
    Typography,
} from '@mui/material';
import { errorMessage, useInvoke } from './api';

export interface TopicRow {
    name: string;
    topic: string;
    permission: string;
    description?: string;
}

export interface TopicGroup {
    name: string;
    topics: TopicRow[];
}

export interface TopicTableProps {
    productKey: string;
    /** A device's own topics; without it the topics show the `${deviceName}` placeholder. */
    deviceName?: string;
}

/** Topic类列表: a radio switch between the topic groups (基础通信Topic, 物模型通信Topic) and the chosen group's table. */
export function TopicTable({ productKey, deviceName }: TopicTableProps) {
    const topics = useInvoke<TopicGroup[]>(
        'topics',
        'list',
        productKey ? (deviceName ? { productKey, deviceName } : { productKey }) : null,
        [],
    );
    const groups = Array.isArray(topics.data) ? topics.data : [];
    const [chosen, setChosen] = useState<string | null>(null);
    const current = groups.find((g) => g.name === chosen) ?? groups[0];

    return (
        <Box>
            {groups.length > 0 && (
                <RadioGroup
                    row
                    aria-label="Topic类型"
                    value={current?.name ?? ''}
                    onChange={(e) => setChosen(e.target.value)}
                    sx={{ mb: 1 }}
                >
                    {groups.map((g) => (
                        <FormControlLabel key={g.name} value={g.name} control={<Radio size="small" />} label={g.name} />
                    ))}
                </RadioGroup>
            )}
            {topics.isPending && <LinearProgress sx={{ height: 2 }} />}
            {topics.error ? <Alert severity="error">{errorMessage(topics.error, 'Topic 列表加载失败')}</Alert> : null}
            {current && (
                <TableContainer>
                    <Table size="small" aria-label={current.name} sx={{ minWidth: 720 }}>
                        <TableHead>
                            <TableRow>
                                <TableCell sx={{ width: '18%' }}>功能</TableCell>
                                <TableCell>Topic</TableCell>
                                <TableCell sx={{ width: 100 }}>操作权限</TableCell>
                                <TableCell sx={{ width: '25%' }}>描述</TableCell>
                            </TableRow>
                        </TableHead>
                        <TableBody>
                            {current.topics.map((t) => (
                                <TableRow key={t.topic} hover>
                                    <TableCell>{t.name}</TableCell>
                                    <TableCell sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }}>
                                        {t.topic}
                                    </TableCell>
                                    <TableCell>{t.permission}</TableCell>
                                    <TableCell>{t.description ?? '-'}</TableCell>
                                </TableRow>
                            ))}
                            {current.topics.length === 0 && (
                                <TableRow>
                                    <TableCell colSpan={4} align="center">
                                        <Typography color="text.secondary">暂无数据</Typography>
                                    </TableCell>
                                </TableRow>
                            )}
                        </TableBody>
                    </Table>
                </TableContainer>
            )}
        </Box>
    );
}
