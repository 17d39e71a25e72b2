/** Where Bull Board is mounted: the one surface that takes Basic credentials (a browser answers its challenge). */
export const BOARD_PATH = '/queues';

/** Whether an app-level path is the board's, compared as Express mounts it (any letter case). */
export function isBoardPath(path: string): boolean {
  const p = path.toLowerCase();
  return p === BOARD_PATH || p.startsWith(`${BOARD_PATH}/`);
}
