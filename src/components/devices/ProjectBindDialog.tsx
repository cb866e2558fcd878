import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
    Alert,
    Button,
    Dialog,
    DialogActions,
    DialogContent,
    DialogTitle,
    FormControlLabel,
    LinearProgress,
    Radio,
    RadioGroup,
    ToggleButton,
    ToggleButtonGroup,
    Typography,
} from '@mui/material';
import { useDataProvider, useNotify, type DataProvider } from 'react-admin';
import type { PlatformDataProviderMethods } from '../../../dataProvider/types';
import { checkBind, type BindCandidate } from '../../../schemas/device';

/** SPEC.md §9: the scenes the bind dialog filters by. */
export const BIND_SCENES = ['全部', '智慧办公', '智慧城市', '智慧车辆', '工业互联网'] as const;

export interface ProjectOption {
    /** The project's id, which bind takes as projectId (device rows carry it too). */
    id?: number;
    code: string;
    projectName: string;
    sceneName: string;
}

interface ProjectBindDialogProps {
    open: boolean;
    onClose: () => void;
    /** The resource whose custom calls `projects` and `bind` are used. */
    resource: string;
    devices: BindCandidate[];
    onBound: () => void;
}

const notifyText = (notify: ReturnType<typeof useNotify>, text: string, type: 'success' | 'error' | 'warning') =>
    notify(text, { type, messageArgs: { _: text } });

/**
 * Binds the chosen devices, none of which has a project yet, to one project picked from GET /api/project/listAll
 * under a scene filter. bind's projectId is the project's id, as device rows carry it; an option without an id
 * (the picker shape of SPEC.md, "code (value)") sends its code.
 */
export function ProjectBindDialog({ open, onClose, resource, devices, onBound }: ProjectBindDialogProps) {
    const dataProvider = useDataProvider<DataProvider & PlatformDataProviderMethods>();
    const notify = useNotify();
    const [scene, setScene] = useState<string>('全部');
    const [projectCode, setProjectCode] = useState('');
    const [saving, setSaving] = useState(false);
    const projects = useQuery({
        queryKey: ['projects', 'listAll'],
        queryFn: async () => (await dataProvider.invoke<ProjectOption[]>(resource, 'projects')).data ?? [],
        enabled: open,
    });
    const chosen = (projects.data ?? []).find((p) => p.code === projectCode);
    const shown = useMemo(
        () => (projects.data ?? []).filter((p) => scene === '全部' || p.sceneName === scene),
        [projects.data, scene],
    );

    const close = () => {
        if (saving) return;
        setProjectCode('');
        setScene('全部');
        onClose();
    };

    const confirm = async () => {
        const problem = checkBind(devices, chosen ? (chosen.id ?? chosen.code) : '');
        if (problem) {
            notifyText(notify, problem, 'warning');
            return;
        }
        setSaving(true);
        try {
            await dataProvider.invoke(resource, 'bind', {
                projectId: chosen!.id ?? chosen!.code,
                deviceId: devices.map((d) => d.deviceId),
            });
            notifyText(notify, '关联成功', 'success');
            setSaving(false);
            setProjectCode('');
            onBound();
            onClose();
        } catch (error) {
            setSaving(false);
            notifyText(notify, (error instanceof Error && error.message) || '系统错误', 'error');
        }
    };

    return (
        <Dialog open={open} onClose={close} fullWidth maxWidth="sm" aria-labelledby="bind-project-title">
            <DialogTitle id="bind-project-title">关联项目</DialogTitle>
            <DialogContent>
                <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
                    将所选的 {devices.length} 个设备关联到项目（一个设备只能属于一个项目）
                </Typography>
                <ToggleButtonGroup
                    size="small"
                    exclusive
                    value={scene}
                    onChange={(_, next: string | null) => {
                        if (!next) return;
                        setScene(next);
                        setProjectCode('');
                    }}
                    aria-label="场景"
                    sx={{ mb: 1.5, flexWrap: 'wrap' }}
                >
                    {BIND_SCENES.map((s) => (
                        <ToggleButton key={s} value={s}>
                            {s}
                        </ToggleButton>
                    ))}
                </ToggleButtonGroup>
                {projects.isPending ? <LinearProgress aria-label="加载中" /> : null}
                {projects.error ? (
                    <Alert severity="error">{(projects.error as Error).message || '查询失败'}</Alert>
                ) : null}
                {projects.data && shown.length === 0 ? (
                    <Typography color="text.secondary" sx={{ py: 2 }}>
                        该场景下暂无项目
                    </Typography>
                ) : null}
                <RadioGroup
                    aria-label="项目"
                    value={projectCode}
                    onChange={(e) => setProjectCode(e.target.value)}
                    sx={{ maxHeight: 280, overflowY: 'auto', flexWrap: 'nowrap' }}
                >
                    {shown.map((p) => (
                        <FormControlLabel
                            key={p.code}
                            value={p.code}
                            control={<Radio size="small" />}
                            label={`${p.projectName}（${p.sceneName}）`}
                        />
                    ))}
                </RadioGroup>
            </DialogContent>
            <DialogActions sx={{ px: 3, pb: 2 }}>
                <Button onClick={close} disabled={saving}>
                    取消
                </Button>
                <Button variant="contained" onClick={() => void confirm()} disabled={saving}>
                    {saving ? '关联中…' : '确定'}
                </Button>
            </DialogActions>
        </Dialog>
    );
}
