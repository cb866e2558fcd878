import { useState } from 'react';
import {
    Alert,
    Box,
    Button,
    Dialog,
    DialogActions,
    DialogContent,
    DialogTitle,
    LinearProgress,
    List,
    ListItem,
    ListItemText,
    TextField,
} from '@mui/material';
import { Confirm } from 'react-admin';
import { ValidationError } from 'yup';
import { sceneSaveSchema } from '../../../schemas/project';
import { PROJECTS, errorText, usePlatform, useRefreshProjects, useScenes, useToast, type Scene } from './api';

/** The scene schema's first message for a name, or undefined when it passes (schemas/project.ts). */
function sceneNameProblem(name: string): string | undefined {
    try {
        sceneSaveSchema.validateSync({ name });
        return undefined;
    } catch (error) {
        return error instanceof ValidationError ? error.errors[0] : errorText(error);
    }
}

interface NameFormProps {
    label: string;
    initial?: string;
    submitLabel: string;
    onSubmit: (name: string) => Promise<boolean>;
    onCancel?: () => void;
}

/** One scene name input with its button; the schema's message shows under it, the server's as a toast. */
function NameForm({ label, initial = '', submitLabel, onSubmit, onCancel }: NameFormProps) {
    const [name, setName] = useState(initial);
    const [problem, setProblem] = useState<string>();
    const [saving, setSaving] = useState(false);
    const submit = async () => {
        const found = sceneNameProblem(name);
        setProblem(found);
        if (found) return;
        setSaving(true);
        const saved = await onSubmit(name.trim());
        setSaving(false);
        if (saved && !initial) setName('');
    };
    return (
        <Box
            component="form"
            noValidate
            onSubmit={(e) => {
                e.preventDefault();
                void submit();
            }}
            sx={{ display: 'flex', gap: 1, alignItems: 'flex-start', width: '100%' }}
        >
            <TextField
                size="small"
                label={label}
                value={name}
                onChange={(e) => {
                    setName(e.target.value);
                    if (problem) setProblem(sceneNameProblem(e.target.value));
                }}
                error={!!problem}
                helperText={problem ?? ' '}
                slotProps={{ htmlInput: { maxLength: 20 } }}
                sx={{ flex: 1 }}
                autoFocus={!!initial}
            />
            <Button type="submit" variant="contained" disabled={saving} sx={{ mt: 0.25, whiteSpace: 'nowrap' }}>
                {saving ? '保存中…' : submitLabel}
            </Button>
            {onCancel ? (
                <Button onClick={onCancel} disabled={saving} sx={{ mt: 0.25 }}>
                    取消
                </Button>
            ) : null}
        </Box>
    );
}

/**
 * 场景管理: the scenes with their project counts; add, rename, delete. Deleting a scene projects still use is
 * refused by the server (该场景下还有N个项目，请先删除或移走项目), and its message is shown as it is.
 */
export function SceneDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
    const platform = usePlatform();
    const scenes = useScenes();
    const refresh = useRefreshProjects();
    const toast = useToast();
    const [renaming, setRenaming] = useState<number>();
    const [deleting, setDeleting] = useState<Scene>();
    const [pending, setPending] = useState(false);

    const save = async (scene: { id?: number; name: string }): Promise<boolean> => {
        try {
            await platform.invoke(PROJECTS, 'saveScene', scene);
        } catch (error) {
            toast(errorText(error), 'error');
            return false;
        }
        toast(scene.id ? '修改成功' : '添加成功');
        setRenaming(undefined);
        await refresh();
        return true;
    };

    const remove = async () => {
        if (!deleting) return;
        setPending(true);
        try {
            await platform.invoke(PROJECTS, 'deleteScene', { id: deleting.id });
            toast('删除成功');
            await refresh();
        } catch (error) {
            toast(errorText(error, '删除失败'), 'error');
        } finally {
            setPending(false);
            setDeleting(undefined);
        }
    };

    return (
        <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm" aria-labelledby="scene-dialog-title">
            <DialogTitle id="scene-dialog-title">场景管理</DialogTitle>
            <DialogContent>
                <Box sx={{ pt: 1 }}>
                    <NameForm label="新场景名称" submitLabel="添加" onSubmit={(name) => save({ name })} />
                </Box>
                {scenes.isPending ? <LinearProgress aria-label="场景加载中" /> : null}
                {scenes.error ? <Alert severity="error">{errorText(scenes.error, '查询失败')}</Alert> : null}
                {scenes.data && scenes.data.length === 0 ? <Alert severity="info">暂无场景，请先添加</Alert> : null}
                <List dense aria-label="场景列表" sx={{ maxHeight: 360, overflowY: 'auto' }}>
                    {(scenes.data ?? []).map((scene) => (
                        <ListItem
                            key={scene.id}
                            divider
                            secondaryAction={
                                renaming === scene.id ? undefined : (
                                    <Box sx={{ display: 'flex', gap: 0.5 }}>
                                        <Button size="small" onClick={() => setRenaming(scene.id)}>
                                            重命名
                                        </Button>
                                        <Button size="small" color="error" onClick={() => setDeleting(scene)}>
                                            删除
                                        </Button>
                                    </Box>
                                )
                            }
                        >
                            {renaming === scene.id ? (
                                <NameForm
                                    label="场景名称"
                                    initial={scene.name}
                                    submitLabel="保存"
                                    onSubmit={(name) => save({ id: scene.id, name })}
                                    onCancel={() => setRenaming(undefined)}
                                />
                            ) : (
                                <ListItemText
                                    primary={scene.name}
                                    secondary={`${scene.projectCount ?? 0} 个项目`}
                                    sx={{ pr: 16 }}
                                />
                            )}
                        </ListItem>
                    ))}
                </List>
            </DialogContent>
            <DialogActions sx={{ px: 3, pb: 2 }}>
                <Button onClick={onClose}>关闭</Button>
            </DialogActions>
            <Confirm
                isOpen={!!deleting}
                loading={pending}
                title="提示"
                content={deleting ? `确定删除场景「${deleting.name}」吗？` : ''}
                confirm="确定"
                cancel="取消"
                onConfirm={() => void remove()}
                onClose={() => setDeleting(undefined)}
            />
        </Dialog>
    );
}
