;;; review_journey.el --- a review in eglot: findings in flymake, fixed by a code action  -*- lexical-binding: t -*-

(load (expand-file-name "eglot_helpers.el" (file-name-directory load-file-name)))

(defun j-finding-diagnostics ()
  (seq-filter (lambda (d) (string-match-p "Guard against division" (flymake-diagnostic-text d)))
              (flymake-diagnostics)))

(j-run
 "eglot: review this file, the finding in flymake, Fix with Codex"
 (lambda ()
   (find-file (expand-file-name "app.py" j-ws))
   (let ((server (j-eglot-start))
         (buf (current-buffer))
         (last-nonmenu-event 0))
     (setq j-answers '("Review this file"))
     (j-code-action server (point-min) (point-min))
     (j-wait "the finding in flymake"
             (lambda () (flymake-start) (j-finding-diagnostics)) 120)
     (let ((finding (car (j-finding-diagnostics))))
       (j-eq (line-number-at-pos (flymake-diagnostic-beg finding)) 5 "the finding's line")
       (setq j-answers nil)             ; "Fix with Codex: …" is picked by its prefix
       (j-code-action server (flymake-diagnostic-beg finding) (flymake-diagnostic-end finding)))
     (j-wait "the fix in the buffer"
             (lambda () (string-match-p "b must not be zero" (with-current-buffer buf (buffer-string)))) 120)
     (j-wait "the fix on disk" (lambda () (string-match-p "b must not be zero" (j-disk "app.py")))))))
