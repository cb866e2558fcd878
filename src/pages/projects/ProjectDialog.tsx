import { useDefinition } from '../../engine/context';
import { FormDialog } from '../../engine/FormDialog';
import { PROGRAM_LIST, usePlatform, useRefreshProjects, type ProjectRow } from './api';

interface ProjectDialogProps {
    open: boolean;
    onClose: () => void;
    /** The project being edited; none creates one. */
    record?: ProjectRow;
    onSaved?: (project: ProjectRow) => void;
}

/**
 * 新建项目 / 编辑项目: 项目名称, 项目分类 (the scenes, including those users added) and 备注, validated with
 * schemas/project.ts; the server's refusals (项目名称已存在) show as the toast and the dialog stays open.
 */
export function ProjectDialog({ open, onClose, record, onSaved }: ProjectDialogProps) {
    const definition = useDefinition();
    const platform = usePlatform();
    const refresh = useRefreshProjects();
    const editing = !!record;
    return (
        <FormDialog<ProjectRow>
            open={open}
            onClose={onClose}
            title={editing ? '编辑项目' : (definition.list?.createLabel ?? '新建项目')}
            fields={['name', 'classId', 'remark']}
            schema={definition.schema}
            defaultValues={
                record
                    ? { name: record.name, classId: record.classId, remark: record.remark ?? '' }
                    : { name: '', classId: '', remark: '' }
            }
            submit={async (values) => {
                if (record) {
                    const { data } = await platform.update<ProjectRow>(PROGRAM_LIST, {
                        id: record.id,
                        data: values,
                        previousData: record,
                    });
                    return data;
                }
                const { data } = await platform.create<ProjectRow>(PROGRAM_LIST, { data: values });
                return data;
            }}
            success={editing ? definition.messages?.updated : definition.messages?.created}
            onSuccess={(project) => {
                void refresh();
                onSaved?.(project);
            }}
        />
    );
}
