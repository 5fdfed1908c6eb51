import type { NotifyMethod } from '../../core/index.js';
import type { NumberFormat, Translation } from './translation.js';
import { waitOf, type Wait } from './wait.js';

/** Made at the first count, not when the catalog loads: the first frame counts nothing. */
let rules: Intl.PluralRules | undefined;
const plural = { select: (n: number) => (rules ??= new Intl.PluralRules('ar')).select(n) };

/**
 * Arabic counted nouns (Intl.PluralRules): one and two have their own forms, 3–10 take the plural, 11–99 the
 * accusative singular, 0 and 100 and up the genitive singular. `two` is nominative; pass the genitive dual
 * where a preposition governs the noun (بعد ثانيتين).
 */
interface CountedNoun {
  one: string;
  two: string;
  few: string;
  many: string;
  other?: string;
}

function count(n: number, format: NumberFormat, forms: CountedNoun): string {
  switch (plural.select(n)) {
    case 'one':
      return forms.one;
    case 'two':
      return forms.two;
    case 'few':
      return `${format(n)} ${forms.few}`;
    case 'many':
      return `${format(n)} ${forms.many}`;
    default:
      return `${format(n)} ${forms.other ?? forms.many}`;
  }
}

/** Keeps an inserted value (an amount, a reason) in its own direction inside Arabic text. */
const isolate = (value: string) => `\u2068${value}\u2069`;
/** Left to right, isolated: numbers, codes and addresses read in their own order ("05 01 1990", "•••• 4567"). */
const ltr = (value: string) => `\u2066${value}\u2069`;

/** Where a reference code went, by the channels it was sent through: said the same wherever it is said. */
const sentTo = (method: NotifyMethod, email: string, mobile: string) =>
  method === 'BOTH'
    ? `برسالة نصية إلى ${ltr(mobile)} وبالبريد الإلكتروني إلى ${ltr(email)}`
    : method === 'SMS'
      ? `برسالة نصية إلى ${ltr(mobile)}`
      : `بالبريد الإلكتروني إلى ${ltr(email)}`;

const minutes: CountedNoun = { one: 'دقيقة واحدة', two: 'دقيقتان', few: 'دقائق', many: 'دقيقة' };
const seconds: CountedNoun = { one: 'ثانية واحدة', two: 'ثانيتان', few: 'ثوانٍ', many: 'ثانية' };
const afterSeconds: CountedNoun = { ...seconds, two: 'ثانيتين' };
/** After بعد (and نحو): the genitive dual. */
const AFTER: Record<Wait['unit'], CountedNoun> = {
  second: afterSeconds,
  minute: { ...minutes, two: 'دقيقتين' },
  hour: { one: 'ساعة واحدة', two: 'ساعتين', few: 'ساعات', many: 'ساعة' },
};
const tries: CountedNoun = { one: 'محاولة واحدة', two: 'محاولتان', few: 'محاولات', many: 'محاولة' };
const problems: CountedNoun = { one: 'خطأ واحد', two: 'خطآن', few: 'أخطاء', many: 'خطأً', other: 'خطأ' };

const ar: Translation = {
  $code: 'ar',
  $name: 'العربية',
  $dir: 'rtl',

  testMode: 'وضع الاختبار',
  testModeHint: 'لا تُنقل أموال حقيقية. استخدم قيم الاختبار الخاصة بالبيئة التجريبية.',
  total: 'الإجمالي',
  paymentMethod: 'طريقة الدفع',
  method: { Pos: 'البطاقة عبر جهاز نقاط البيع', BankAccount: 'الحساب البنكي', ReferenceCode: 'الرمز المرجعي' },
  methodHint: {
    Pos: 'مرّر بطاقتك أو أدخلها في جهاز نقاط البيع لدى المتجر.',
    BankAccount: 'ادفع من حسابك البنكي وأكّد العملية مع بنكك.',
    ReferenceCode: 'احصل على رمز مرجعي وادفع به في أي منفذ دفع.',
  },

  label: {
    sn: 'الرقم التسلسلي للجهاز',
    bankAccountNumber: 'رقم الحساب',
    bankCode: 'رمز البنك',
    dateOfBirth: 'تاريخ ميلاد صاحب الحساب',
    dobDay: 'اليوم',
    dobMonth: 'الشهر',
    dobYear: 'السنة',
    notifyUserName: 'اسمك',
    notifyUserEmail: 'البريد الإلكتروني',
    notifyUserMobile: 'رقم الهاتف المحمول',
    notifyLanguage: 'لغة الرسالة',
    notifyMethod: 'أرسل الرمز عبر',
    otp: 'رمز التحقق',
    pin: 'الرقم السري',
  },
  hint: {
    sn: 'يظهر على شاشة الجهاز، أو تجده مطبوعًا على ظهره.',
    bankAccountNumber: 'أحرف وأرقام فقط، كما في كشف حسابك.',
    bankCode: `رمز بنكك، مثل ${ltr('033')}.`,
    dateOfBirth: `مثال: ${ltr('05 01 1990')}.`,
    notifyUserMobile: `مع رمز الدولة، مثل ${ltr('+20 100 123 4567')}.`,
    otp: 'الرمز الوارد في الرسالة التي أرسلها بنكك.',
    pin: 'الرقم السري لحسابك البنكي.',
  },
  notifyMethodOption: { BOTH: 'رسالة نصية وبريد إلكتروني', EMAIL: 'البريد الإلكتروني', SMS: 'رسالة نصية' },
  notifyLanguageOption: { English: 'English', Arabic: 'العربية' },
  contactOnFile: {
    EMAIL: 'سنرسل الرمز إلى البريد الإلكتروني المسجَّل لدى المتجر، ما لم تكتب غيره.',
    SMS: 'سنرسل الرمز إلى رقم الهاتف المحمول المسجَّل لدى المتجر، ما لم تكتب غيره.',
    BOTH: 'سنرسل الرمز إلى البريد الإلكتروني ورقم الهاتف المحمول المسجَّلين لدى المتجر، ما لم تكتب غيرهما.',
  },

  fieldError: {
    required: (label) => `أدخل ${label}.`,
    format: (label) => `صيغة ${label} غير صحيحة.`,
    length: (label) => `عدد أحرف ${label} غير صحيح.`,
    date: 'أدخل تاريخًا صحيحًا.',
    past: 'يجب أن يكون تاريخ الميلاد في الماضي.',
    tooOld: 'تحقّق من سنة الميلاد.',
    mismatchCode: 'الرمز غير صحيح. راجع الرسالة وحاول مرة أخرى.',
    codesExhausted: 'لم تعد هناك محاولات لهذه الدفعة. استخدم طريقة أخرى للدفع.',
    mismatchDateOfBirth: 'تاريخ الميلاد لا يطابق بيانات الحساب.',
    limit: 'طلبت رموزًا كثيرة. انتظر وصول الرمز الأخير، أو ابدأ من جديد.',
    state: 'تجاوزت عملية الدفع هذه الخطوة.',
    characters: (label) => `يحتوي ${label} على رموز غير مسموح بها، مثل فواصل الأسطر.`,
    other: (label) => `تحقّق من ${label}.`,
  },
  errorPrefix: 'خطأ:',
  formHasErrors: (n, format) => `في النموذج ${count(n, format, problems)}.`,

  orderReference: 'الطلب',
  pay: (amount) => `ادفع ${isolate(amount)}`,
  getCode: 'احصل على الرمز',
  processing: 'جارٍ التنفيذ…',
  unloaded: 'تعذّر تحميل صفحة الدفع. تحقّق من اتصالك وأعد تحميل الصفحة.',

  swipeTitle: 'ادفع عبر الجهاز',
  swipeBody: (sn) => `مرّر البطاقة أو أدخلها في الجهاز رقم ${ltr(sn)}.`,
  waiting: 'في انتظار الدفع…',

  otpTitle: 'أدخل الرمز',
  otpBody: 'أرسل بنكك رمز تحقق لمرة واحدة إلى رقم الهاتف المسجّل في الحساب.',
  pinTitle: 'أدخل الرقم السري',
  pinBody: 'يطلب بنكك الرقم السري للحساب.',
  confirm: 'تأكيد',
  resend: 'أعد إرسال الرمز',
  resendIn: (n, format) => `إعادة الإرسال بعد ${count(n, format, afterSeconds)}`,
  resent: 'أُرسل رمز جديد.',

  redirectTitle: 'أكّد مع بنكك',
  redirectBody: 'يحتاج بنكك إلى تأكيد هذه العملية على صفحته. ستعود إلى هنا بعد ذلك.',
  redirectGo: 'تابع إلى بنكك',
  redirecting: 'جارٍ تحويلك إلى بنكك…',
  redirectWindowOpened: 'أكمل التحقق في النافذة التي فُتحت. ستُحدَّث هذه الصفحة تلقائيًا.',
  redirectReopen: 'افتح صفحة البنك مرة أخرى',

  codeTitle: 'رمزك المرجعي',
  codeBody: 'استخدم هذا الرمز للدفع في أي منفذ دفع قبل انتهاء صلاحيته.',
  payBefore: (amount, time) => `ادفع ${ltr(amount)} بهذا الرمز في أي منفذ دفع قبل ${ltr(time)}.`,
  canClose: 'يمكنك إغلاق هذه الصفحة.',
  printCode: 'اطبع أو احفظ',
  copy: 'انسخ الرمز',
  copied: 'نُسخ الرمز.',
  copyFailed: 'تعذّر النسخ. حدّد الرمز وانسخه.',
  shareCode: 'مشاركة',
  voucherCopied: 'نُسخت القسيمة.',
  whereTitle: 'أين تدفع',
  whereToPay: 'ادفع الرمز نقدًا أو من حسابك البنكي، في أي مكان يخبرك المتجر أنه يقبل رموزه. احتفظ به حتى تدفع.',
  voucherText: (merchant, code, deadline, where) => `${merchant}: الرمز المرجعي ${ltr(code)}. ${deadline} ${where}`,
  payOnPhone: 'ادفع من هاتفك',
  payOnPhoneHint: 'امسح الرمز بكاميرا هاتفك، أو أرسل الرابط إلى نفسك. ستعرض هذه الصفحة الدفع فور إتمامه.',
  payOnPhoneQr: 'رمز QR لرابط عملية الدفع هذه',
  payOnPhoneLink: 'رابط عملية الدفع هذه',
  copyLink: 'انسخ الرابط',
  linkCopied: 'نُسخ الرابط.',
  payOnPhoneFailed: 'تعذّر إنشاء الرابط. حاول مرة أخرى، أو ادفع هنا.',
  leftPaid: 'تمّت عملية الدفع التي بدأتها سابقًا لهذا الطلب: لا حاجة إلى أي إجراء آخر.',
  paidTwice: 'دُفع هذا الطلب مرتين. سيردّ المتجر إحدى الدفعتين.',
  sentBy: (method, email, mobile) => `أرسلناه أيضًا ${sentTo(method, email, mobile)}.`,
  onFile: { email: 'العنوان المسجَّل لدى المتجر', mobile: 'الرقم المسجَّل لدى المتجر' },
  expiresIn: 'ينتهي خلال',
  timeLeft: (m, s, format) => `الوقت المتبقي: ${m > 0 ? count(m, format, minutes) : count(s, format, seconds)}`,

  status: { INITIAL: 'قيد البدء', PENDING: 'في انتظار الدفع', SUCCESS: 'تم الدفع', FAIL: 'فشل', CLOSE: 'انتهت الصلاحية' },
  statusLabel: 'الحالة',

  successTitle: 'تم استلام الدفعة',
  // No full stop: the amount ends in one (ج.م.).
  successBody: (amount) => `استلمنا ${isolate(amount)}`,
  failTitle: 'لم تتم عملية الدفع',
  failBody: 'لم يُخصم أي مبلغ. يمكنك المحاولة مرة أخرى.',
  failReason: (reason) => `السبب: ${isolate(reason)}`,
  expiredTitle: 'انتهت صلاحية عملية الدفع',
  expiredBody: 'انتهى وقت الدفع ولم يُخصم أي مبلغ. يمكنك البدء من جديد.',
  paidBeforeTitle: 'هذا الطلب مدفوع بالفعل',
  paidBeforeBody: (amount, reference, orderNo) => `دُفع مبلغ ${isolate(amount)} للطلب ${ltr(reference)} من قبل (رقم الدفعة ${ltr(orderNo)}). لا حاجة إلى أي إجراء آخر.`,
  mismatchTitle: 'لا يمكن دفع هذا الطلب هنا',
  mismatchBody: 'توجد بالفعل عملية دفع لهذا الطلب بمبلغ مختلف. تواصل مع المتجر.',
  retry: 'حاول مرة أخرى',
  startOver: 'ابدأ من جديد',

  networkError: 'تعذّر الاتصال بالمتجر. تحقّق من اتصالك وحاول مرة أخرى.',
  serviceError: 'الدفع غير متاح الآن. حاول بعد قليل.',
  codeSentOnly: (method, email, mobile) => `أرسلنا رمزك المرجعي ${sentTo(method, email, mobile)}. ادفع به في أي منفذ دفع.`,
  answerLost: 'بدأت عملية الدفع، لكن خطوتها التالية لم تصل إلى هذه الصفحة. تتابعها هذه الصفحة، ويمكنك أيضًا البدء من جديد.',
  duplicateInProgress: 'هناك عملية دفع جارية لهذا الطلب بالفعل.',
  inProgressFromAccount: (ending) => `هناك عملية دفع جارية بالفعل من الحساب المصرفي المنتهي بـ ${ltr(ending)}.`,
  genericError: 'حدث خطأ ما. حاول مرة أخرى.',
  configError: (setting) => `إعداد صفحة الدفع غير صحيح (${isolate(setting)}).`,
  redirectBlocked: 'منع متصفحك نافذة البنك. استخدم الزر لفتحها.',
  statusCheckFailed: 'تعذّر التحقق من حالة الدفع. سنواصل المحاولة.',
  checkoutExpired: 'انتهت صلاحية صفحة الدفع هذه. أعد تحميل الصفحة للمتابعة.',
  checkoutRefused: 'لم يعد من الممكن استخدام صفحة الدفع هذه. أعد تحميل الصفحة.',
  tooMany: (n, format) => {
    const wait = waitOf(n);
    return `محاولات كثيرة. حاول مرة أخرى بعد ${wait.about ? 'نحو ' : ''}${count(wait.count, format, AFTER[wait.unit])}.`;
  },
  shopError: 'تعذّر على المتجر قبول المدفوعات الآن. حاول مرة أخرى بعد قليل.',
  timeoutError: 'يستغرق المتجر وقتًا طويلًا في الرد. حاول مرة أخرى بعد قليل.',
  notFoundError: 'الدفع غير مُعدّ في هذه الصفحة. يُرجى التواصل مع المتجر.',
  fieldsUnavailable: 'تعذّر تحميل حقول الدفع الآمنة. أعد تحميل الصفحة أو اختر طريقة أخرى.',
  fieldsRefused: 'تعذّر على حقول الدفع الآمنة الوصول إلى المتجر. اختر طريقة أخرى أو تواصل مع المتجر.',
  unavailable: 'صفحة الدفع هذه غير متاحة الآن. يُرجى التواصل مع المتجر.',

  leaveOrder: 'استخدم طريقة أخرى',
  leaveConfirm: 'هل تريد إيقاف عملية الدفع هذه واختيار طريقة دفع أخرى؟ لا تُكمل هذه العملية بعد ذلك.',
  leaveYes: 'نعم، استخدم طريقة أخرى',
  leaveNo: 'أبقِ عملية الدفع هذه',
  codeTriesLeft: (n, format) =>
    n === 1 ? 'الرمز غير صحيح. تبقّت لك محاولة أخيرة.' : `الرمز غير صحيح. تبقّى ${count(n, format, tries)}.`,
  failure: {
    CARD_DECLINED: 'رُفضت بطاقتك. جرّب بطاقة أخرى أو طريقة أخرى.',
    INSUFFICIENT_FUNDS: 'لا يوجد رصيد كافٍ في الحساب.',
    ACCOUNT_BLOCKED: 'لا يمكن لهذا الحساب إجراء مدفوعات. تواصل مع بنكك.',
    AUTH_ATTEMPTS_EXCEEDED: 'أُدخلت رموز خاطئة كثيرة.',
    '3DS_DECLINED': 'لم يتم تأكيد الدفع مع بنكك.',
    ORDER_EXPIRED: 'انتهى وقت الدفع.',
  },
  datePlaceholder: { day: 'يوم', month: 'شهر', year: 'سنة' },
  frameTitle: { BankAccount: 'بيانات الحساب البنكي', code: 'إدخال آمن' },
  receipt: { method: 'الطريقة', time: 'الوقت', orderNo: 'رقم الدفعة', copy: 'انسخ رقم الدفعة' },
};

export default ar;
