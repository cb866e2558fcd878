/** Device file management (SPEC.md "File"): limits the console states and the server enforces. */

export const FILE_MAX_BYTES = 20 * 1024 * 1024;
export const FILE_PAGE_SIZE = 10;

/** Lower-case extensions a device file may have: firmware, configuration, documents, images, logs, archives. */
export const FILE_EXTENSIONS = [
    'bin',
    'hex',
    'img',
    'zip',
    'gz',
    'tar',
    'json',
    'xml',
    'yaml',
    'yml',
    'txt',
    'csv',
    'log',
    'pdf',
    'png',
    'jpg',
    'jpeg',
] as const;

export const FILE_NAME_MAX = 100;

export const FILE_MESSAGES = {
    required: '请选择要上传的文件',
    tooLarge: '文件大小不能超过20MB',
    empty: '文件为空',
    type: `只支持以下类型的文件：${FILE_EXTENSIONS.join('、')}`,
    nameTooLong: `文件名不得超过${FILE_NAME_MAX}个字符`,
    uploaded: '文件上传成功!',
    deleteConfirm: '是否删除此文件?',
    deleted: '删除成功',
} as const;

/** What the upload dialog says before a file is chosen. */
export const FILE_RULE_TEXT = `单个文件不超过20MB，支持 ${FILE_EXTENSIONS.join('、')}`;

export function fileExtension(name: string): string {
    const lower = name.toLowerCase();
    const dot = lower.lastIndexOf('.');
    return dot < 0 ? '' : lower.slice(dot + 1);
}

/** The first reason a file is refused, or undefined: the same check in the dialog and on the server. */
export function fileProblem(file: { name: string; size: number }): string | undefined {
    if (file.size > FILE_MAX_BYTES) return FILE_MESSAGES.tooLarge;
    if (file.size === 0) return FILE_MESSAGES.empty;
    if (!(FILE_EXTENSIONS as readonly string[]).includes(fileExtension(file.name))) return FILE_MESSAGES.type;
    if ([...file.name].length > FILE_NAME_MAX) return FILE_MESSAGES.nameTooLong;
    return undefined;
}
