export * from './types';
export * from './whatif';
