import { useEffect, useMemo, useRef } from 'react';
import { yupResolver } from '@hookform/resolvers/yup';
import { Button, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, TextField } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { Controller, useForm, type Resolver } from 'react-hook-form';
import * as yup from 'yup';
import { GROUP_MESSAGES, groupNameRule, groupSaveSchema } from '../../../schemas/group';
import { errorText, GROUPS, usePlatform, useRefreshGroups, useToast, type GroupRow, type ProjectOption } from './api';
import { GroupTreeSelect } from './GroupTreeSelect';

interface Values {
    projectCode: string;
    pid: number | '';
    name: string;
    remark: string;
}

/** While typing, the name rules of SPEC.md speak ('分组名称不能为空' when emptied); the rest waits for save. */
const liveSchema = yup.object({
    projectCode: yup.string(),
    pid: yup.mixed(),
    name: groupNameRule,
    remark: yup.string().trim().max(200, GROUP_MESSAGES.remarkMax),
});
const onSave = yupResolver(groupSaveSchema) as unknown as Resolver<Values, Phase>;
const onType = yupResolver(liveSchema) as unknown as Resolver<Values, Phase>;
/** Which schema speaks: the save schema while the save button is being handled, the live one otherwise. */
interface Phase {
    saving: boolean;
}
const resolver: Resolver<Values, Phase> = (values, context, options) =>
    context?.saving ? onSave(values, context, options) : onType(values, context, options);

export function useProjects(enabled = true) {
    const platform = usePlatform();
    return useQuery({
        queryKey: [GROUPS, 'projects'],
        queryFn: async () => (await platform.invoke<ProjectOption[]>(GROUPS, 'projects')).data ?? [],
        enabled,
        staleTime: 30_000,
    });
}

interface NewGroupDialogProps {
    open: boolean;
    onClose: () => void;
    /** A child group of this one: project and parent fixed. */
    parent?: { groupId: number; groupName: string; projectCode: string; projectName: string | null };
    onCreated?: (group: GroupRow) => void;
}

/** 新建分组 (SPEC.md "Groups"): project, parent tree select, name with its three rules, description. */
export function NewGroupDialog({ open, onClose, parent, onCreated }: NewGroupDialogProps) {
    const platform = usePlatform();
    const toast = useToast();
    const refresh = useRefreshGroups();
    const projects = useProjects(open && !parent);
    const parentId = parent?.groupId;
    const parentProject = parent?.projectCode;
    const defaults = useMemo<Values>(
        () => ({ projectCode: parentProject ?? '', pid: parentId ?? '', name: '', remark: '' }),
        [parentId, parentProject],
    );
    const phase = useRef<Phase>({ saving: false });
    const { control, handleSubmit, formState, reset, watch, setValue } = useForm<Values, Phase>({
        resolver,
        context: phase.current,
        mode: 'onTouched',
        defaultValues: defaults,
    });
    const projectCode = watch('projectCode');
    useEffect(() => {
        if (open) reset(defaults);
    }, [open, defaults, reset]);

    const close = () => {
        if (formState.isSubmitting) return;
        reset(defaults);
        onClose();
    };

    const save = handleSubmit(async (values) => {
        try {
            const { data } = await platform.invoke<GroupRow>(GROUPS, 'save', {
                projectCode: values.projectCode,
                pid: values.pid,
                name: values.name.trim(),
                remark: values.remark.trim(),
            });
            toast(GROUP_MESSAGES.created);
            await refresh();
            onCreated?.(data);
            reset(defaults);
            onClose();
        } catch (err) {
            toast(errorText(err), 'error');
        }
    });

    const submit = async (e: React.FormEvent) => {
        phase.current.saving = true;
        try {
            await save(e);
        } finally {
            phase.current.saving = false;
        }
    };

    return (
        <Dialog open={open} onClose={close} fullWidth maxWidth="sm" aria-labelledby="new-group-title">
            <DialogTitle id="new-group-title">{parent ? '新建子分组' : '新建分组'}</DialogTitle>
            <form onSubmit={(e) => void submit(e)} noValidate>
                <DialogContent sx={{ pt: 0 }}>
                    {parent ? (
                        <TextField
                            label="所属项目"
                            value={parent.projectName ?? parent.projectCode}
                            disabled
                            fullWidth
                            margin="dense"
                        />
                    ) : (
                        <Controller
                            name="projectCode"
                            control={control}
                            render={({ field, fieldState }) => (
                                <TextField
                                    {...field}
                                    select
                                    label="所属项目"
                                    required
                                    fullWidth
                                    margin="dense"
                                    error={!!fieldState.error}
                                    helperText={
                                        fieldState.error?.message ??
                                        (projects.error ? `项目加载失败：${errorText(projects.error)}` : undefined)
                                    }
                                    onChange={(e) => {
                                        field.onChange(e.target.value);
                                        // The parent belongs to a project: choose it again in the new one.
                                        setValue('pid', '');
                                    }}
                                >
                                    {projects.isPending ? (
                                        <MenuItem value="" disabled>
                                            加载中…
                                        </MenuItem>
                                    ) : null}
                                    {(projects.data ?? []).map((p) => (
                                        <MenuItem key={p.code} value={p.code}>
                                            {p.projectName}
                                        </MenuItem>
                                    ))}
                                </TextField>
                            )}
                        />
                    )}
                    <Controller
                        name="pid"
                        control={control}
                        render={({ field, fieldState }) => (
                            <GroupTreeSelect
                                projectCode={projectCode || undefined}
                                value={field.value}
                                onChange={(pid) => field.onChange(pid)}
                                onBlur={field.onBlur}
                                required
                                error={!!fieldState.error}
                                helperText={fieldState.error?.message}
                                valueLabel={parent?.groupName}
                                disabled={!!parent}
                            />
                        )}
                    />
                    <Controller
                        name="name"
                        control={control}
                        render={({ field, fieldState }) => (
                            <TextField
                                {...field}
                                label="分组名称"
                                required
                                fullWidth
                                margin="dense"
                                error={!!fieldState.error}
                                helperText={
                                    fieldState.error?.message ??
                                    '4~30个字符，中文算2位；支持中文、英文字母、数字和下划线'
                                }
                                slotProps={{ htmlInput: { maxLength: 30 } }}
                            />
                        )}
                    />
                    <Controller
                        name="remark"
                        control={control}
                        render={({ field, fieldState }) => (
                            <TextField
                                {...field}
                                label="描述"
                                fullWidth
                                multiline
                                minRows={2}
                                margin="dense"
                                error={!!fieldState.error}
                                helperText={fieldState.error?.message}
                                slotProps={{ htmlInput: { maxLength: 200 } }}
                            />
                        )}
                    />
                </DialogContent>
                <DialogActions sx={{ px: 3, pb: 2 }}>
                    <Button onClick={close} disabled={formState.isSubmitting}>
                        取消
                    </Button>
                    <Button type="submit" variant="contained" disabled={formState.isSubmitting}>
                        {formState.isSubmitting ? '提交中…' : '确定'}
                    </Button>
                </DialogActions>
            </form>
        </Dialog>
    );
}
