;;; emacs_lsp.el --- syncwatch-lsp under Emacs's LSP clients, in batch  -*- lexical-binding: t -*-
;; Debian 12's Emacs 28 with elpa-eglot (1.9) or elpa-lsp-mode (8.0), set up with
;; docs/editor.md's own snippets (EMACS_SNIPPETS: the files tests/lsp/emacs_lsp_test.py took from
;; the page, loaded as an init file would be, before the file is opened): open a CUDA file,
;; start the client as M-x eglot / M-x lsp does, wait for syncwatch's diagnostic, apply the
;; preferred quickfix as the user would pick it from the menu, check the buffer, wait for the
;; finding to go. Run by tests/lsp/emacs_lsp_test.py (syncwatch-lsp on PATH, as the snippets name it):
;;   EMACS_SNIPPETS=a.el:b.el EMACS_RESULTS=... EMACS_CLIENT=eglot|lsp-mode emacs --batch -l emacs_lsp.el FILE
(require 'package)
(package-initialize)                    ; Debian's elpa-* packages
(require 'cl-lib)

(defvar sw-results (getenv "EMACS_RESULTS"))
(defvar sw-client (getenv "EMACS_CLIENT"))
(defvar sw-failed nil)
(defun sw-check (name ok &optional detail)
  (write-region (concat (if ok "ok   " "FAIL ") name
                        (if (and (not ok) detail) (format ": %S" detail) "") "\n")
                nil sw-results t 'silent)
  (unless ok (setq sw-failed t))
  ok)
(defun sw-finish ()
  (kill-emacs (if sw-failed 1 0)))
(defun sw-wait (pred seconds)
  "Run the event loop until PRED or SECONDS pass: process output and timers, and the idle
timers as if the user had stopped typing (batch Emacs is never idle; eglot sends didChange
and flymake asks for diagnostics from idle timers)."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.1)
      (dolist (timer (copy-sequence timer-idle-list))
        (timer-event-handler timer)))
    (funcall pred)))
(defun sw-line-of (pos) (save-excursion (goto-char pos) (line-number-at-pos)))
(defun sw-line-text (n)
  (save-excursion (goto-char (point-min)) (forward-line (1- n))
                  (buffer-substring-no-properties (line-beginning-position) (line-end-position))))

;; docs/editor.md's snippets, as written
(setq make-backup-files nil auto-save-default nil create-lockfiles nil)
(dolist (snippet (split-string (getenv "EMACS_SNIPPETS") ":" t))
  (load snippet nil t))
(find-file (car command-line-args-left))
(setq command-line-args-left nil)
(sw-check "the .cu file opens in cuda-mode" (eq major-mode 'cuda-mode) major-mode)
(defconst sw-fixed "cudaMemcpyAsync(d_prev_saved, d_prev, pixels * sizeof(float), cudaMemcpyDeviceToDevice, stream)")

(cond
 ((equal sw-client "eglot")
  (require 'flymake)
  ;; M-x eglot, as it guesses the server for this buffer
  (apply #'eglot (eglot--guess-contact))
  (sw-check "eglot started syncwatch-lsp" (eglot-current-server))
  (defun sw-memcpy-diag ()
    (cl-find-if (lambda (d) (= (sw-line-of (flymake-diagnostic-beg d)) 31)) (flymake-diagnostics)))
  (let ((d (progn (sw-wait #'sw-memcpy-diag 300) (sw-memcpy-diag))))
    (unless (sw-check "diagnostics: the cudaMemcpy at line 31 (flymake)" d) (sw-finish))
    (let ((lsp-diag (cdr (assoc 'eglot-lsp-diag (eglot--diag-data d)))))
      (sw-check "the diagnostic carries the rule id" (equal (plist-get lsp-diag :code) "syncwatch-sync-memcpy")
                lsp-diag))
    ;; M-x eglot-code-actions on the line, kind quickfix; the menu's default is the preferred
    ;; action, which is what RET picks; invoked from the keyboard (eglot shows a mouse menu
    ;; when the last event was not a key)
    (goto-char (flymake-diagnostic-beg d))
    (let ((offered nil) (last-nonmenu-event ?\r))
      (cl-letf (((symbol-function 'completing-read)
                 (lambda (_prompt collection &rest args)
                   (setq offered (mapcar #'car collection))
                   (nth 4 args))))     ; DEF: what RET on an empty input returns
        (eglot-code-actions (line-beginning-position) (line-end-position) "quickfix" t))
      (sw-check "two quickfixes offered: the fix-it and NOLINT" (= (length offered) 2) offered))
    (sw-check "the fix-it applied: cudaMemcpyAsync on stream"
              (string-match-p (regexp-quote sw-fixed) (sw-line-text 31)) (sw-line-text 31))
    (sw-check "after the edit: the finding is gone, the memset note stays"
              (sw-wait (lambda () (and (not (sw-memcpy-diag)) (flymake-diagnostics))) 300)
              (flymake-diagnostics))
    (eglot-shutdown (eglot-current-server))))

 ((equal sw-client "lsp-mode")
  (require 'flymake)
  ;; Emacs's own C backends (gcc via a Makefile, flymake-proc) have nothing to run here
  (setq-default flymake-diagnostic-functions nil)
  (remove-hook 'flymake-diagnostic-functions 'flymake-cc t) ; cc-mode's, in this buffer
  (setq lsp-client-packages nil         ; only syncwatch's client: nothing else to find here
        lsp-restart 'ignore lsp-enable-snippet nil
        lsp-diagnostics-provider :flymake lsp-keep-workspace-alive nil
        lsp-session-file (expand-file-name "lsp-session" temporary-file-directory))
  (require 'lsp-mode)                   ; the snippet's with-eval-after-load registers the client
  (require 'lsp-diagnostics)
  (lsp-workspace-folders-add (locate-dominating-file default-directory "compile_commands.json"))
  (lsp)
  (sw-check "lsp-mode started syncwatch-lsp"
            (sw-wait (lambda () (cl-find-if (lambda (w) (eq (lsp--workspace-status w) 'initialized))
                                            (lsp-workspaces)))
                     120))
  (defun sw-memcpy-diag ()
    (cl-find-if (lambda (d) (= (lsp:position-line (lsp:range-start (lsp:diagnostic-range d))) 30))
                (gethash (lsp--fix-path-casing buffer-file-name) (lsp-diagnostics t))))
  (let ((d (progn (sw-wait #'sw-memcpy-diag 300) (sw-memcpy-diag))))
    (unless (sw-check "diagnostics: the cudaMemcpy at line 31" d) (sw-finish))
    (sw-check "the diagnostic carries the rule id" (equal (lsp:diagnostic-code? d) "syncwatch-sync-memcpy")
              (lsp:diagnostic-code? d))
    ;; lsp-execute-code-action, as M-x lsp-execute-code-action picks from the line's actions
    (goto-char (point-min)) (forward-line 30) (forward-char 2)
    (let* ((actions (lsp-code-actions-at-point))
           (fix (cl-find-if #'lsp:code-action-is-preferred? actions)))
      (sw-check "two code actions offered: the fix-it and NOLINT" (= (length actions) 2)
                (mapcar #'lsp:code-action-title actions))
      (when (sw-check "a preferred quickfix" (and fix (equal (lsp:code-action-kind? fix) "quickfix")))
        (lsp-execute-code-action fix)))
    (sw-check "the fix-it applied: cudaMemcpyAsync on stream"
              (string-match-p (regexp-quote sw-fixed) (sw-line-text 31)) (sw-line-text 31))
    (sw-check "after the edit: the finding is gone, the memset note stays"
              (sw-wait (lambda () (and (not (sw-memcpy-diag))
                                       (gethash (lsp--fix-path-casing buffer-file-name) (lsp-diagnostics t))))
                       300))
    (lsp-workspace-shutdown (car (lsp-workspaces)))))
 (t (sw-check (format "EMACS_CLIENT is eglot or lsp-mode, not %S" sw-client) nil)))
(sw-finish)
