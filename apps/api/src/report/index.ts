export {
  collectReport,
  injectCaller,
  httpCaller,
  REPORT_POLICIES,
  type ApiCall,
  type ReportOptions,
} from './collect';
export { reportToCsv } from './csv';
export { reportToHtml, type ReportCharts } from './html';
export { htmlToPdf, findChromium } from './pdf';
export { REPORT_SCHEMA_VERSION, type Report, type OperationReport } from './types';
